import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FileError } from './errors.js'

/** The project folder (holding package.json), whether code runs from src/ or dist/src/. */
function findProjectRoot (): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new FileError(`package.json not found above ${fileURLToPath(import.meta.url)}: the installation is incomplete`)
    dir = parent
  }
  return dir
}

export const PROJECT_ROOT = findProjectRoot()
