/**
 * The SQLite store's payments section: what the chain watcher scanned (payments, checkpoints,
 * each payTo's scanned-through block), the reads of it, and the usage figures computed from it.
 */
import { applyUsage, usageChangesListing } from '../../domain/lifecycle.js'
import {
  CHAIN_CHECKPOINT_HISTORY,
  type ChainScanCommit, type ChainScanState, type PaymentFilter, type PaymentPage, type PaymentSummary, type ServiceUsage
} from '../../domain/payment.js'
import type { Page } from '../../domain/catalog-query.js'
import { payToKey } from '../../domain/pay-to.js'
import { toServiceJson, type ServiceRecord } from '../../domain/service.js'
import type { PaymentStore } from '../catalog-store.js'
import { NEXT_SEQ, type SqliteConnection } from './connection.js'
import { RECORD_COLUMNS, fromCheckpointRow, fromPaymentRow, fromValues, type PaymentRow, type RecordValues } from './mapping.js'
import { PAY_TO_KEY_SQL } from './schema.js'

/** Payment amounts are INTEGER (int64): USDC's whole supply fits many times over. */
const MAX_AMOUNT = (1n << 63n) - 1n

/** WHERE conditions and parameters of a payment filter. */
function paymentWhere (filter: PaymentFilter): { where: string, params: unknown[] } {
  const where = ['network = ?', 'pay_to = ?']
  // Payments are stored with payToKey; a filter may name an EVM payTo in any case.
  const params: unknown[] = [filter.network, payToKey(filter.payTo)]
  if (filter.since !== undefined) { where.push('at >= ?'); params.push(filter.since) }
  if (filter.amount !== undefined) { where.push('amount = ?'); params.push(BigInt(filter.amount)) }
  if (filter.excludeAmounts !== undefined && filter.excludeAmounts.length > 0) {
    where.push(`amount NOT IN (${filter.excludeAmounts.map(() => '?').join(', ')})`)
    params.push(...filter.excludeAmounts.map((amount) => BigInt(amount)))
  }
  return { where: where.join(' AND '), params }
}

export class SqlitePayments implements PaymentStore {
  readonly #connection: SqliteConnection
  readonly #commitChainScan: (network: string, commit: ChainScanCommit) => number
  readonly #rewindChain: (network: string, toBlock: number) => string[]
  readonly #recordUsage: (serviceId: string, usage: ServiceUsage) => ServiceRecord | null

  constructor (connection: SqliteConnection) {
    this.#connection = connection
    this.#commitChainScan = connection.writeTransaction((network: string, commit: ChainScanCommit): number => {
      const insert = connection.statement(`INSERT OR IGNORE INTO payments (network, tx_hash, log_index, block_number, block_hash, at, payer, pay_to, amount, service_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      let added = 0
      for (const p of commit.payments) {
        const amount = BigInt(p.amount)
        if (amount < 0n || amount > MAX_AMOUNT) throw new RangeError(`payment ${p.txHash}:${p.logIndex} has an amount out of range: ${p.amount}`)
        added += insert.run(network, p.txHash, p.logIndex, p.blockNumber, p.blockHash, p.at, p.payer, p.payTo, amount, p.serviceId).changes
      }
      if (commit.checkpoint !== undefined) {
        connection.statement('INSERT OR REPLACE INTO chain_checkpoints (network, block_number, block_hash) VALUES (?, ?, ?)')
          .run(network, commit.checkpoint.blockNumber, commit.checkpoint.blockHash)
        connection.statement(`DELETE FROM chain_checkpoints WHERE network = ? AND block_number < (
          SELECT MIN(block_number) FROM (SELECT block_number FROM chain_checkpoints WHERE network = ? ORDER BY block_number DESC LIMIT ?))`)
          .run(network, network, CHAIN_CHECKPOINT_HISTORY)
      }
      if (commit.scanned !== undefined) {
        const scanned = connection.statement(`INSERT INTO chain_pay_tos (network, pay_to, scanned_to) VALUES (?, ?, ?)
          ON CONFLICT (network, pay_to) DO UPDATE SET scanned_to = excluded.scanned_to`)
        for (const payTo of commit.scanned.payTos) scanned.run(network, payTo, commit.scanned.block)
      }
      return added
    })
    this.#rewindChain = connection.writeTransaction((network: string, toBlock: number): string[] => {
      const payTos = connection.statement('SELECT DISTINCT pay_to FROM payments WHERE network = ? AND block_number > ?').pluck().all(network, toBlock) as string[]
      connection.statement('DELETE FROM payments WHERE network = ? AND block_number > ?').run(network, toBlock)
      connection.statement('DELETE FROM chain_checkpoints WHERE network = ? AND block_number > ?').run(network, toBlock)
      connection.statement('UPDATE chain_pay_tos SET scanned_to = ? WHERE network = ? AND scanned_to > ?').run(toBlock, network, toBlock)
      return payTos
    })
    this.#recordUsage = connection.writeTransaction((serviceId: string, usage: ServiceUsage): ServiceRecord | null => {
      const before = connection.service(serviceId)
      if (before === null) return null
      const update = applyUsage(before, usage)
      const after = { ...before, ...update }
      connection.statement(`UPDATE services SET ${usageChangesListing(before, update) ? `seq = ${NEXT_SEQ},` : ''} trust_score = ?, usage = ?, service_json = ? WHERE id = ?`)
        .run(update.trustScore, JSON.stringify(usage), toServiceJson(after), serviceId)
      return after
    })
  }

  async getChainScanState (network: string): Promise<ChainScanState | null> {
    const checkpoints = (this.#connection.statement('SELECT block_number, block_hash FROM chain_checkpoints WHERE network = ? ORDER BY block_number DESC LIMIT ?')
      .all(network, CHAIN_CHECKPOINT_HISTORY) as Array<{ block_number: number, block_hash: string }>).map(fromCheckpointRow)
    const payTos = this.#connection.statement('SELECT pay_to, scanned_to FROM chain_pay_tos WHERE network = ?').all(network) as Array<{ pay_to: string, scanned_to: number }>
    if (checkpoints.length === 0 && payTos.length === 0) return null
    return { network, checkpoints, payTos: Object.fromEntries(payTos.map((row) => [row.pay_to, row.scanned_to])) }
  }

  async commitChainScan (network: string, commit: ChainScanCommit): Promise<number> {
    return this.#commitChainScan(network, commit)
  }

  async rewindChain (network: string, toBlock: number): Promise<string[]> {
    return this.#rewindChain(network, toBlock)
  }

  async listPayments (filter: PaymentFilter, page: Page): Promise<PaymentPage> {
    const { where, params } = paymentWhere(filter)
    const total = (this.#connection.statement(`SELECT COUNT(*) AS n FROM payments WHERE ${where}`).get(...params) as { n: number }).n
    const rows = this.#connection.safeIntegerStatement(`SELECT * FROM payments WHERE ${where} ORDER BY block_number DESC, log_index DESC LIMIT ? OFFSET ?`)
      .all(...params, page.limit, page.offset) as PaymentRow[]
    return { items: rows.map(fromPaymentRow), total }
  }

  async summarizePayments (filter: PaymentFilter): Promise<PaymentSummary> {
    const { where, params } = paymentWhere(filter)
    const row = this.#connection.safeIntegerStatement(`SELECT COUNT(*) AS n, COALESCE(SUM(amount), 0) AS total, COUNT(DISTINCT payer) AS payers, MAX(at) AS last
      FROM payments WHERE ${where}`).get(...params) as { n: bigint, total: bigint, payers: bigint, last: string | null }
    return { count: Number(row.n), totalAtomic: String(row.total), uniquePayers: Number(row.payers), lastAt: row.last }
  }

  async payTosOn (network: string): Promise<string[]> {
    return this.#connection.statement(`SELECT DISTINCT ${PAY_TO_KEY_SQL} FROM services WHERE network = ?`).pluck().all(network) as string[]
  }

  async servicesByPayTo (network: string, payTo: string): Promise<ServiceRecord[]> {
    const rows = this.#connection.rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE network = ? AND ${PAY_TO_KEY_SQL} = ? ORDER BY created_at, id`)
      .all(network, payToKey(payTo)) as RecordValues[]
    return rows.map(fromValues)
  }

  async recordUsage (serviceId: string, usage: ServiceUsage): Promise<ServiceRecord | null> {
    return this.#recordUsage(serviceId, usage)
  }
}
