/** The SQLite store's probes section: what the prober measured, the monitoring state it sets, and when each service is due again. */
import type { HttpMethod } from '../../domain/http-method.js'
import { PROBE_HISTORY_LIMIT, applyProbe, changesListing, type LifecyclePolicy, type ProbeSummary } from '../../domain/lifecycle.js'
import { applyDiscovery, withDiscovery } from '../../domain/call-schema.js'
import type { CategoryInferrer } from '../../domain/listing-text.js'
import type { Page } from '../../domain/catalog-query.js'
import { refreshedText } from '../../domain/prefill.js'
import type { ProbeOutcome } from '../../domain/probe.js'
import { toServiceJson, type ServiceRecord } from '../../domain/service.js'
import { nameSortKey, priceOfSortKey } from '../../domain/sort-keys.js'
import type { ProbeCandidate, ProbePage, ProbeStore } from '../catalog-store.js'
import { NEXT_SEQ, type SqliteConnection } from './connection.js'
import { discoveryParams, fromProbeRow, type ProbeRow } from './mapping.js'

export class SqliteProbes implements ProbeStore {
  readonly #connection: SqliteConnection
  readonly #recordProbe: (serviceId: string, outcome: ProbeOutcome, policy: LifecyclePolicy, nextProbeAt: string | null, inferCategory?: CategoryInferrer) => ServiceRecord | null

  constructor (connection: SqliteConnection) {
    this.#connection = connection
    this.#recordProbe = connection.writeTransaction((serviceId: string, outcome: ProbeOutcome, policy: LifecyclePolicy, nextProbeAt: string | null, inferCategory?: CategoryInferrer) =>
      this.#recordProbeNow(serviceId, outcome, policy, nextProbeAt, inferCategory))
  }

  #recordProbeNow (serviceId: string, outcome: ProbeOutcome, policy: LifecyclePolicy, nextProbeAt: string | null, inferCategory?: CategoryInferrer): ServiceRecord | null {
    const connection = this.#connection
    const before = connection.service(serviceId)
    if (before === null) return null
    connection.statement(`INSERT INTO probes (service_id, checked_at, http_status, x402_version, latency_ms, answered_402, matched, reason, accepts)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(serviceId, outcome.checkedAt, outcome.httpStatus, outcome.x402Version, outcome.latencyMs,
      outcome.answered402 ? 1 : 0, outcome.matched ? 1 : 0, outcome.reason, outcome.accepts === null ? null : JSON.stringify(outcome.accepts))
    // Bounded per service: everything older than the newest PROBE_HISTORY_LIMIT goes.
    const oldestKept = connection.statement('SELECT id FROM probes WHERE service_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?')
      .get(serviceId, PROBE_HISTORY_LIMIT - 1) as { id: number } | undefined
    if (oldestKept !== undefined) connection.statement('DELETE FROM probes WHERE service_id = ? AND id < ?').run(serviceId, oldestKept.id)
    const history = (connection.statement('SELECT checked_at, answered_402, matched FROM probes WHERE service_id = ? ORDER BY id DESC LIMIT ?')
      .all(serviceId, PROBE_HISTORY_LIMIT) as Array<Pick<ProbeRow, 'checked_at' | 'answered_402' | 'matched'>>)
      .map((probe): ProbeSummary => ({ checkedAt: probe.checked_at, answered402: probe.answered_402 === 1, matched: probe.matched === 1 }))
    const update = applyProbe(before, outcome, history, policy)
    // A valid 402 answer keeps the prefilled text current (src/domain/prefill.ts).
    const text = outcome.answered402 ? refreshedText(before, outcome.text, inferCategory) : {}
    const textChanged = Object.keys(text).length > 0
    const requirements = update.paymentRequirements === null ? null : JSON.stringify(update.paymentRequirements)
    const discovery = applyDiscovery(before, outcome.discovery)
    const merged: ServiceRecord = { ...before, ...update, ...text }
    const after: ServiceRecord = discovery === null ? merged : withDiscovery(merged, discovery)
    const changed = changesListing(before, update) || discovery !== null || textChanged
    const columns = discoveryParams(after)
    connection.statement(`UPDATE services SET ${changed ? `seq = ${NEXT_SEQ},` : ''} status = ?, trust_score = ?, uptime_score = ?,
      last_checked = ?, payment_requirements = ?, next_probe_at = ?, call_schema = ?, bazaar_extension = ?,
      name = ?, name_sort = ?, description = ?, tags = ?, category = ?, service_json = ? WHERE id = ?`)
      .run(update.status, update.trustScore, update.uptimeScore, update.lastChecked, requirements, nextProbeAt, columns.callSchema, columns.bazaarExtension,
        after.name, nameSortKey(after.name), after.description, JSON.stringify(after.tags), after.category, toServiceJson(after), serviceId)
    return after
  }

  async recordProbe (serviceId: string, outcome: ProbeOutcome, policy: LifecyclePolicy, nextProbeAt: string | null, inferCategory?: CategoryInferrer): Promise<ServiceRecord | null> {
    return this.#recordProbe(serviceId, outcome, policy, nextProbeAt, inferCategory)
  }

  async listProbes (serviceId: string, page: Page): Promise<ProbePage> {
    const total = (this.#connection.statement('SELECT COUNT(*) AS n FROM probes WHERE service_id = ?').get(serviceId) as { n: number }).n
    const rows = this.#connection.statement('SELECT * FROM probes WHERE service_id = ? ORDER BY id DESC LIMIT ? OFFSET ?')
      .all(serviceId, page.limit, page.offset) as ProbeRow[]
    return { items: rows.map(fromProbeRow), total }
  }

  async lastProbe (serviceId: string): Promise<ProbeOutcome | null> {
    const row = this.#connection.statement('SELECT * FROM probes WHERE service_id = ? ORDER BY id DESC LIMIT 1').get(serviceId) as ProbeRow | undefined
    return row === undefined ? null : fromProbeRow(row)
  }

  async dueForProbe (now: string, limit: number, includeSeeded: boolean): Promise<ProbeCandidate[]> {
    // NULL (never probed, or asked for) sorts first in SQLite's ascending order.
    const rows = this.#connection.statement(`SELECT id, endpoint, method, network, payment_address, price_atomic FROM services
      WHERE (next_probe_at IS NULL OR next_probe_at <= ?)
      ${includeSeeded ? '' : 'AND (owner_id IS NOT NULL OR EXISTS (SELECT 1 FROM service_sources WHERE service_id = services.id))'}
      ORDER BY next_probe_at, id LIMIT ?`).all(now, limit) as Array<{ id: string, endpoint: string, method: string, network: string, payment_address: string, price_atomic: number }>
    return rows.map((row) => ({
      id: row.id,
      endpoint: row.endpoint,
      method: row.method as HttpMethod,
      network: row.network,
      paymentAddress: row.payment_address,
      priceAtomic: priceOfSortKey(row.price_atomic)
    }))
  }

  async markProbeDue (serviceId: string): Promise<boolean> {
    return this.#connection.statement('UPDATE services SET next_probe_at = NULL WHERE id = ?').run(serviceId).changes === 1
  }
}
