/**
 * `npm run catalog -- sources add|list|sync|remove`: the operator's sources (docs/sources.md),
 * managed on the store like the bulk import. `--json` prints one JSON value on stdout.
 */
import type { Config } from '../config.js'
import { canonicalSourceUrl, newSourceId, SOURCE_KINDS, type SourceKind, type SourceRecord, type SyncReport } from '../domain/sources.js'
import { removeSource, syncSource } from '../application/sync-source.js'
import { CatalogError, UsageError } from '../errors.js'
import { PROGRAM } from './run.js'
import type { CatalogStore } from '../store/catalog-store.js'

export const SOURCES_HELP = `  sources add URL --kind bazaar|catalog|origin
                       add a source: bazaar, a facilitator or catalog serving the Bazaar list at
                       URL/discovery/resources; catalog, another instance of this catalog,
                       followed through URL/api/changes; origin, an origin whose OpenAPI
                       document or /.well-known/x402 lists its paid resources
  sources list         every source, its last pass and its counts
  sources sync ID      run one pass over the source now and print its report: exit 0 when the
                       pass read the whole list (a catalog: its changes since the last pass), 1
                       when it could not (the message names the source)
  sources remove ID    remove the source; listings it alone listed become inactive
  --json               list and sync print one JSON value on stdout`

export interface SourcesCommand {
  args: string[]
  kind: string | undefined
  json: boolean
}

function summary (report: SyncReport | null): string {
  if (report === null) return 'never synced'
  const counts = `seen ${report.seen}, added ${report.added}, updated ${report.updated}, unchanged ${report.unchanged}, retired ${report.retired}, refused ${report.refusedCount}`
  return `${report.complete ? 'complete' : 'incomplete'} pass at ${report.startedAt}: ${counts}${report.error === null ? '' : `; ${report.error}`}`
}

async function sourceOf (store: CatalogStore, id: string | undefined, command: string): Promise<SourceRecord> {
  if (id === undefined) throw new UsageError(`sources ${command} needs the source's ID (npm run catalog -- sources list shows them)`)
  const source = await store.getSource(id)
  if (source === null) throw new CatalogError(`no source ${id} (npm run catalog -- sources list shows them)`, 'NOT_FOUND', 404)
  return source
}

/** Runs one sources command; returns the exit code. */
export async function runSources (store: CatalogStore, config: Config, command: SourcesCommand): Promise<number> {
  const [action, target, ...rest] = command.args
  if (rest.length > 0) throw new UsageError(`unknown argument "${rest[0] as string}"`)
  switch (action) {
    case 'add': {
      if (target === undefined) throw new UsageError('sources add needs the source URL')
      if (command.kind === undefined) throw new UsageError(`sources add needs --kind (${SOURCE_KINDS.join(', ')})`)
      if (!(SOURCE_KINDS as readonly string[]).includes(command.kind)) throw new UsageError(`--kind must be one of ${SOURCE_KINDS.join(', ')}, got "${command.kind}"`)
      const source: SourceRecord = { id: newSourceId(), kind: command.kind as SourceKind, url: canonicalSourceUrl(target, command.kind as SourceKind), createdAt: new Date().toISOString(), lastSync: null, lastCompleteAt: null }
      await store.insertSource(source)
      console.log(command.json ? JSON.stringify(source) : `added ${source.id}: ${source.kind} ${source.url} (npm run catalog -- sources sync ${source.id} reads it now)`)
      return 0
    }
    case 'list': {
      if (target !== undefined) throw new UsageError(`unknown argument "${target}"`)
      const sources = await store.listSources()
      if (command.json) console.log(JSON.stringify(sources))
      else if (sources.length === 0) console.log('no sources (npm run catalog -- sources add URL --kind bazaar|catalog|origin adds one)')
      else for (const source of sources) console.log(`${source.id}  ${source.kind}  ${source.url}  ${summary(source.lastSync)}`)
      return 0
    }
    case 'sync': {
      const source = await sourceOf(store, target, 'sync')
      // Loaded only here: the reader pulls in the HTTP client, inference the Japanese analyzer.
      const { openPassReader, pick } = await import('../sources/scheduled-passes.js')
      const reader = await openPassReader(config)
      try {
        const report = await syncSource({ store, ...pick(reader), probeIntervalMs: config.probeIntervalS * 1000 }, source)
        if (command.json) console.log(JSON.stringify({ source: { id: source.id, kind: source.kind, url: source.url }, ...report }))
        else {
          console.log(`${source.id} ${source.url}: ${summary(report)}`)
          for (const { item, reason } of report.refused) console.log(`refused ${item}: ${reason}`)
          if (report.refusedCount > report.refused.length) console.log(`… and ${report.refusedCount - report.refused.length} more refused`)
        }
        if (!report.complete) console.error(`${PROGRAM}: ${report.error ?? `the pass over ${source.url} did not complete`}`)
        return report.complete ? 0 : 1
      } finally {
        await reader.close()
      }
    }
    case 'remove': {
      const source = await sourceOf(store, target, 'remove')
      const removed = await removeSource(store, source) ?? { lost: 0, retired: 0 }
      console.log(`removed ${source.id} (${source.url}): ${removed.lost} listings lost it, ${removed.retired} left without a source became inactive`)
      return 0
    }
    default:
      throw new UsageError(action === undefined ? 'sources needs a command: add, list, sync or remove' : `unknown sources command "${action}"`)
  }
}
