/**
 * Operator CLI for API keys (npm run keys -- <command>):
 *   create --name <owner>   prints a new key once; only its hash is stored
 *   list                    ids, owners, creation and revocation times (never keys)
 *   revoke <id>             the key stops working at once
 */
import { parseArgs } from 'node:util'
import { loadConfig } from '../config.js'
import { generateApiKey, hashApiKey } from '../domain/api-keys.js'
import { openCatalogStore } from '../adapters.js'

const USAGE = 'usage: npm run keys -- create --name <owner> | list | revoke <key id> | help'

const HELP = `${USAGE}

  create --name <owner>   create a key for <owner>; the key is printed once, only its hash is stored
  list                    key ids, owners, creation and revocation times (never the keys)
  revoke <key id>         the key stops working at once
  help, --help, -h        this text

Keys live in the catalog store in DATA_DIR (default ./data); the server need not be stopped.`

async function main (argv: string[]): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { name: { type: 'string' }, help: { type: 'boolean', short: 'h' } } })
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`)
    return 2
  }
  const { positionals, values } = parsed
  const [command, ...rest] = positionals
  if (values.help === true || command === 'help') {
    console.log(HELP)
    return 0
  }
  const store = await openCatalogStore(loadConfig())
  try {
    if (command === 'create') {
      const name = values.name?.trim() ?? ''
      if (name === '' || name.length > 100) { console.error('create needs --name <owner> (1–100 characters)'); return 2 }
      const { key, id } = generateApiKey()
      await store.insertApiKey({ id, name, hash: hashApiKey(key), createdAt: new Date().toISOString(), revokedAt: null })
      console.log(`created ${id} for ${name}`)
      console.log(`key: ${key}`)
      console.log('Store it now: it is not shown again.')
      return 0
    }
    if (command === 'list') {
      const keys = await store.listApiKeys()
      if (keys.length === 0) console.log('no keys')
      for (const key of keys) console.log([key.id, key.name, key.createdAt, key.revokedAt === null ? 'active' : `revoked ${key.revokedAt}`].join('\t'))
      return 0
    }
    if (command === 'revoke' && rest.length === 1) {
      const revoked = await store.revokeApiKey(rest[0] as string, new Date().toISOString())
      console.log(revoked ? `revoked ${rest[0] as string}` : `no active key ${rest[0] as string}`)
      return revoked ? 0 : 1
    }
    console.error(USAGE)
    return 2
  } finally {
    await store.close()
  }
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code }, (err: unknown) => {
  console.error(`keys: ${(err as Error).message}`)
  process.exitCode = 1
})
