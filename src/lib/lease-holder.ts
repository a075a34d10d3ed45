/** The name a process holds a store lease under (the prober, the chain watcher, source sync): unique per process and start. */
import { hostname } from 'node:os'
import { randomBytes } from 'node:crypto'

export function leaseHolder (): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
}
