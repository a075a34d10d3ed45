/**
 * docker-compose.yml, the Dockerfile and the CI workflow, checked without Docker: structure,
 * pinned images, health checks, start order, and that the environment they give the app is
 * what src/config.ts reads and accepts.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'tap'
import { parse } from 'yaml'
import { API_ENV, API_NODE_FLAGS } from '../bench/support.js'
import { CONFIG_VARIABLES, loadConfig } from '../src/config.js'
import { PROJECT_ROOT } from '../src/paths.js'

interface Service {
  image?: string
  build?: unknown
  command?: string[]
  environment?: Record<string, string>
  ports?: string[]
  volumes?: string[]
  depends_on?: Record<string, { condition: string }>
  healthcheck?: { test: string[] | string }
  profiles?: string[]
}

const read = (path: string): string => readFileSync(join(PROJECT_ROOT, path), 'utf8')
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service>, volumes: Record<string, unknown> }
const services = compose.services

/** The variables src/config.ts reads: the properties of its schema. */
const configVariables = new Set(CONFIG_VARIABLES)

/** Compose's ${VAR:?message} and ${VAR:-default} resolved with the given environment. */
function interpolate (value: string, env: Record<string, string>): string {
  return value.replace(/\$\{([A-Z_]+)(?::([?-])([^}]*))?\}/g, (_, name: string, kind?: string, text?: string) => {
    const set = env[name]
    if (set !== undefined && set !== '') return set
    if (kind === '?') throw new Error(`compose would refuse to start: ${text ?? name}`)
    return kind === '-' ? text ?? '' : ''
  })
}

test('the seven services, each with a health check', async (t) => {
  t.same(Object.keys(services).sort(), ['api', 'indexer', 'meilisearch', 'mongo', 'prober', 'sources', 'watcher'])
  for (const [name, service] of Object.entries(services)) {
    t.ok(service.healthcheck?.test !== undefined && service.healthcheck.test.length > 0, `${name} has a health check`)
    t.ok(service.image !== undefined, `${name} names its image`)
  }
})

test('third-party images are pinned; ours are built from the Dockerfile', async (t) => {
  for (const name of ['mongo', 'meilisearch']) {
    const image = services[name]?.image ?? ''
    t.match(image, /^[\w./-]+:v?\d+\.\d+(\.\d+)?$/, `${name}: ${image} has a version tag`)
  }
  t.equal(services.meilisearch?.image, 'getmeili/meilisearch:v1.35.0')
  for (const name of ['api', 'indexer', 'prober', 'sources', 'watcher']) t.equal(services[name]?.build, '.', `${name} is built from the Dockerfile`)
  const ci = parse(read('.github/workflows/ci.yml')) as { jobs: { test: { services: { meilisearch: { image: string } }, steps: Array<{ run?: string }>, env: Record<string, string> } } }
  t.equal(ci.jobs.test.services.meilisearch.image, services.meilisearch?.image, 'CI tests against the Meilisearch version compose runs')
  t.ok(ci.jobs.test.steps.some((step) => step.run?.includes(services.mongo?.image ?? '?') === true), 'and the MongoDB version')
  t.match(ci.jobs.test.env, { MONGO_URL: /^mongodb:\/\/127\.0\.0\.1:27017\/\w+\?replicaSet=rs0$/, MEILI_URL: 'http://127.0.0.1:7700' }, 'CI sets the variables that turn the contract suites on')
  t.ok(ci.jobs.test.steps.some((step) => step.run === '.ci/run'), 'CI runs the whole suite')
})

test('MongoDB is a single-node replica set the compose file initiates itself', async (t) => {
  const mongo = services.mongo as Service
  t.same(mongo.command?.slice(0, 2), ['--replSet', 'rs0'])
  const check = [mongo.healthcheck?.test].flat().join(' ')
  t.match(check, /rs\.initiate\(\{ _id: 'rs0', members: \[\{ _id: 0, host: 'mongo:27017' \}\] \}\)/, 'the health check initiates the set')
  t.match(check, /isWritablePrimary/, 'and is healthy only once this node can take writes')
  t.ok(mongo.volumes?.some((v) => v.endsWith(':/data/db')), 'data on a volume')
  t.ok(services.meilisearch?.volumes?.some((v) => v.endsWith(':/meili_data')), 'Meilisearch data on a volume')
  for (const volume of [...(mongo.volumes ?? []), ...(services.meilisearch?.volumes ?? [])]) t.ok(volume.split(':')[0] as string in compose.volumes, `${volume} is declared`)
})

test('start order waits for healthy dependencies', async (t) => {
  for (const name of ['api', 'indexer']) {
    for (const dependency of ['mongo', 'meilisearch']) t.equal(services[name]?.depends_on?.[dependency]?.condition, 'service_healthy', `${name} waits for ${dependency}`)
  }
  t.equal(services.indexer?.depends_on?.api?.condition, 'service_healthy', 'the indexer starts after the API seeded the store')
  t.equal(services.prober?.depends_on?.mongo?.condition, 'service_healthy', 'the prober waits for its store')
  t.equal(services.prober?.depends_on?.api?.condition, 'service_healthy', 'and for the API')
  t.same(services.prober?.healthcheck?.test, ['CMD', 'node', 'dist/src/cli/prober.js', 'check'], 'the prober is healthy while its store answers')
  t.same(services.indexer?.healthcheck?.test, ['CMD', 'node', 'dist/indexer/cli.js', 'status'], 'the indexer while the store and the engine answer')
  for (const [name, service] of Object.entries(services)) {
    for (const dependency of Object.keys(service.depends_on ?? {})) t.ok(dependency in services, `${name} depends on a declared service (${dependency})`)
  }
})

test('the variables src/config.ts reads are found', async (t) => {
  for (const variable of ['MONGO_URL', 'MEILI_MASTER_KEY', 'CATALOG_INDEXER', 'CATALOG_PROBER', 'CATALOG_PROBE_INTERVAL_S']) t.ok(configVariables.has(variable), variable)
  t.notOk(configVariables.has('NOT_A_CATALOG_VARIABLE'), 'and only those')
})

test('the app reads every variable compose sets, and accepts the values', async (t) => {
  const secrets = { MEILI_MASTER_KEY: 'compose-test-master-key-0123456789' }
  t.match(services.meilisearch?.environment?.MEILI_MASTER_KEY, /^\$\{MEILI_MASTER_KEY:\?/, 'the master key comes from the environment, required')
  for (const name of ['api', 'indexer']) {
    const environment = services[name]?.environment ?? {}
    for (const variable of Object.keys(environment)) t.ok(configVariables.has(variable), `${name}: ${variable} is read by src/config.ts`)
    const env = Object.fromEntries(Object.entries(environment).map(([k, v]) => [k, interpolate(String(v), secrets)]))
    const config = loadConfig(env)
    t.match(config, {
      store: { kind: 'mongodb', url: 'mongodb://mongo:27017/catalog?replicaSet=rs0' },
      search: { kind: 'meilisearch', url: 'http://meilisearch:7700', apiKey: secrets.MEILI_MASTER_KEY },
      indexer: 'external'
    }, `${name}: the scaled topology`)
    t.equal(env.MEILI_MASTER_KEY, secrets.MEILI_MASTER_KEY, `${name} shares Meilisearch's key`)
  }
  const api = loadConfig(Object.fromEntries(Object.entries(services.api?.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), secrets)])))
  t.equal(api.host, '0.0.0.0', 'the API listens beyond the container')
  t.same(services.api?.ports, [`${api.port}:${api.port}`], 'and is published on port 3000')
  t.equal(api.port, 3000)
  t.equal(api.seed, 'demo', 'with the demo catalog')
  t.same(services.indexer?.command, ['node', 'dist/indexer/cli.js', 'watch'], 'the indexer service runs `npm run indexer -- watch`')
  t.equal(api.indexer, 'external', 'so the API does not index')
})

test('the prober runs exactly once: in its own service, not in the API', async (t) => {
  const secrets = { MEILI_MASTER_KEY: 'compose-test-master-key-0123456789' }
  const configOf = (name: string): ReturnType<typeof loadConfig> =>
    loadConfig(Object.fromEntries(Object.entries(services[name]?.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), secrets)])))
  t.equal(configOf('api').prober, 'external', 'the API leaves probing to the prober service')
  const probers = Object.entries(services).filter(([, service]) => service.command?.join(' ') === 'node dist/src/cli/prober.js')
  t.same(probers.map(([name]) => name), ['prober'], 'one service runs `npm run prober`')
  t.equal((services.prober as Service & { deploy?: { replicas?: number } }).deploy?.replicas ?? 1, 1, 'with one replica')
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts
  t.equal(scripts.prober, 'node dist/src/cli/prober.js', 'the same entry as npm run prober')
  t.equal(scripts.indexer, 'node dist/indexer/cli.js', 'and the indexer service the same as npm run indexer')
  const environment = services.prober?.environment ?? {}
  for (const variable of Object.keys(environment)) t.ok(configVariables.has(variable), `prober: ${variable} is read by src/config.ts`)
  const prober = configOf('prober')
  t.match(prober, { store: { kind: 'mongodb', url: 'mongodb://mongo:27017/catalog?replicaSet=rs0' } }, 'the prober opens the API\'s store')
  t.ok(prober.probeIntervalS > 0, 'with scheduled probing on (it refuses to start otherwise)')
})

test('source passes run once: in their own service, not in the API', async (t) => {
  const secrets = { MEILI_MASTER_KEY: 'compose-test-master-key-0123456789' }
  const configOf = (name: string): ReturnType<typeof loadConfig> =>
    loadConfig(Object.fromEntries(Object.entries(services[name]?.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), secrets)])))
  t.equal(configOf('api').sourceSync, 'external', 'the API leaves source passes to the sources service')
  const sources = services.sources as Service & { deploy?: { replicas?: number } }
  t.same(sources.command, ['node', 'dist/src/cli/source-sync.js'])
  t.equal(sources.deploy?.replicas ?? 1, 1, 'with one replica')
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts
  t.equal(scripts.sources, 'node dist/src/cli/source-sync.js', 'the same entry as npm run sources')
  t.same(sources.healthcheck?.test, ['CMD', 'node', 'dist/src/cli/source-sync.js', 'check'])
  t.equal(sources.depends_on?.mongo?.condition, 'service_healthy', 'it waits for its store')
  t.equal(sources.depends_on?.api?.condition, 'service_healthy', 'and for the API, which loads the demo catalog only into an empty store')
  for (const variable of Object.keys(sources.environment ?? {})) t.ok(configVariables.has(variable), `sources: ${variable} is read by src/config.ts`)
  const config = configOf('sources')
  t.match(config, { store: { kind: 'mongodb', url: 'mongodb://mongo:27017/catalog?replicaSet=rs0' } }, 'it opens the API\'s store')
  t.ok(config.sourceSyncIntervalS > 0, 'with scheduled passes on (it refuses to start otherwise)')
  t.equal(config.probeIntervalS, configOf('prober').probeIntervalS, 'and the prober\'s interval, over which new listings\' first probes are spread')
})

test('the chain watcher runs once, in its own service with the chain profile, not in the API', async (t) => {
  const secrets = { MEILI_MASTER_KEY: 'compose-test-master-key-0123456789' }
  const api = loadConfig(Object.fromEntries(Object.entries(services.api?.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), secrets)])))
  t.equal(api.watcher, 'external', 'the API leaves watching to the watcher service')
  const watcher = services.watcher as Service
  t.same(watcher.command, ['node', 'dist/src/cli/watcher.js'])
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts
  t.equal(scripts.watcher, 'node dist/src/cli/watcher.js', 'the same entry as npm run watcher')
  t.same(watcher.profiles, ['chain'], 'started only with a chains file (--profile chain)')
  t.same(watcher.healthcheck?.test, ['CMD', 'node', 'dist/src/cli/watcher.js', 'check'])
  t.equal(watcher.depends_on?.mongo?.condition, 'service_healthy', 'it waits for its store')
  const environment = watcher.environment ?? {}
  for (const variable of Object.keys(environment)) t.ok(configVariables.has(variable), `watcher: ${variable} is read by src/config.ts`)
  const chainsPath = environment.CATALOG_CHAINS as string
  t.ok(watcher.volumes?.some((v) => interpolate(v, {}).endsWith(`:${chainsPath}:ro`)), 'the chains file is mounted where CATALOG_CHAINS points')
  const { CATALOG_CHAINS: _file, ...rest } = environment
  t.match(loadConfig(rest), { store: { kind: 'mongodb', url: 'mongodb://mongo:27017/catalog?replicaSet=rs0' } }, 'the watcher opens the API\'s store')
})

test('the Dockerfile is multi-stage, runs the built server unprivileged; .dockerignore keeps local state out', async (t) => {
  const dockerfile = read('Dockerfile')
  t.ok((dockerfile.match(/^FROM /gm) ?? []).length >= 2, 'a build stage and a runtime stage')
  t.match(dockerfile, /^FROM node:\d+[\w.-]* AS runtime$/m)
  t.match(dockerfile, /^COPY --from=build \/app\/dist dist$/m, 'the runtime gets the compiled output only')
  t.match(dockerfile, /^USER node$/m)
  const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start
  // npm start is `cross-env NAME=value … node flags… entry` (cross-env: cmd.exe has no `NAME=value command`): the Dockerfile sets the same variables and runs the same command.
  const [, assignments = '', command] = /^cross-env ((?:\w+=\S+ )+)(node .*)$/.exec(start) ?? []
  t.equal(`node ${/^CMD \[(.*)\]$/m.exec(dockerfile)?.[1]?.split(', ').map((word) => JSON.parse(word) as string).slice(1).join(' ')}`, command, 'the API runs as npm start does, with its node flags (README, Memory)')
  const dockerEnv = (/^ENV (.*)$/m.exec(dockerfile)?.[1] ?? '').split(' ')
  for (const assignment of assignments.split(' ').filter((word) => word !== '')) t.ok(dockerEnv.includes(assignment), `the Dockerfile sets ${assignment} as npm start does`)
  t.ok(assignments.includes('MALLOC_MMAP_THRESHOLD_='), 'npm start fixes glibc\'s mmap threshold (README, Memory)')
  // The benchmarks measure the API as npm start runs it.
  t.equal(command, `node ${API_NODE_FLAGS.join(' ')} dist/src/server.js`, 'bench/support.ts has npm start\'s node flags')
  t.equal(Object.entries(API_ENV).map(([name, value]) => `${name}=${value} `).join(''), assignments, 'and its environment')
  t.match(dockerfile, /^COPY fixtures fixtures$/m, 'the demo catalog ships')
  const ignored = read('.dockerignore').split('\n')
  for (const path of ['node_modules', 'dist', 'data', '.git']) t.ok(ignored.includes(path), `${path} stays out of the build context`)
})
