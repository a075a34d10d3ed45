/**
 * Operator CLI for API keys (npm run keys -- create | list | revoke): only a key's hash is
 * stored, and the key is printed once. Its help says how to call it.
 */
import { loadConfig } from '../config.js'
import { generateApiKey, hashApiKey } from '../domain/api-keys.js'
import { openCatalogStore } from '../adapters.js'
import { UsageError } from '../errors.js'
import { runCli } from './run.js'

runCli({
  usage: 'usage: npm run keys -- create --name <owner> | list | revoke <key id> | help',
  help: `  create --name <owner>   create a key for <owner>; the key is printed once, only its hash is stored
  list                    key ids, owners, creation and revocation times (never the keys)
  revoke <key id>         the key stops working at once (exit 1 when no active key has that id)
  help, --help, -h        this text

Keys live in the catalog store in DATA_DIR (default ./data); the server need not be stopped.`,
  positionals: true,
  options: { name: { type: 'string' } },
  main: async ({ positionals, values }) => {
    const [command, ...rest] = positionals
    if (command !== 'create' && command !== 'list' && command !== 'revoke') {
      throw new UsageError(command === undefined ? 'a command is required' : `unknown command "${command}"`)
    }
    const name = typeof values.name === 'string' ? values.name.trim() : ''
    if (command === 'create' && (name === '' || name.length > 100)) throw new UsageError('create needs --name <owner> (1–100 characters)')
    if (command === 'revoke' && rest.length !== 1) throw new UsageError('revoke needs one key id')
    if (command !== 'revoke' && rest.length > 0) throw new UsageError(`unknown argument "${rest[0] as string}"`)
    const store = await openCatalogStore(loadConfig())
    try {
      if (command === 'create') {
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
        else console.log(['id', 'owner', 'created', 'state'].join('\t'))
        for (const key of keys) console.log([key.id, key.name, key.createdAt, key.revokedAt === null ? 'active' : `revoked ${key.revokedAt}`].join('\t'))
        return 0
      }
      const id = rest[0] as string
      const revoked = await store.revokeApiKey(id, new Date().toISOString())
      console.log(revoked ? `revoked ${id}` : `no active key ${id}`)
      return revoked ? 0 : 1
    } finally {
      await store.close()
    }
  }
})
