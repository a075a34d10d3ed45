/** Starts the catalog: listens, and closes gracefully on SIGTERM/SIGINT. */
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { loadConfig } from './config.js'
import { CatalogError } from './errors.js'

async function main (): Promise<void> {
  const config = loadConfig()
  const app = await buildApp(config)
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err !== undefined) app.log.error({ err }, 'closing after an error')
    else app.log.info({ signal }, 'closing')
    await app.close()
  })
  await app.listen({ port: config.port, host: config.host })
}

main().catch((err: unknown) => {
  // Configuration and store problems are the operator's to fix: say what, not a stack.
  if (err instanceof CatalogError) console.error(`x402-catalog: ${err.message}`)
  else console.error(err)
  process.exit(1)
})
