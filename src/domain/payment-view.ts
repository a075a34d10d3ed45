/** Public JSON shape of a payment (TypeBox, also the OpenAPI schema): enough to find it on a block explorer. */
import { Type, type Static } from '@sinclair/typebox'
import { findCurrency, formatAtomic } from './money.js'
import type { PaymentRecord } from './payment.js'

export const PaymentSchema = Type.Object({
  txHash: Type.String({ description: 'Transaction hash (0x…, lower case)' }),
  logIndex: Type.Integer({ minimum: 0, description: 'Index of the USDC Transfer log in its block' }),
  blockNumber: Type.Integer({ minimum: 0 }),
  at: Type.String({ format: 'date-time', description: 'Block time' }),
  payer: Type.String({ description: 'The Transfer\'s from address' }),
  amount: Type.String({ pattern: '^\\d+(\\.\\d+)?$', description: 'In USDC, exact (decimal string)' }),
  network: Type.String({ description: 'CAIP-2 id' })
}, { additionalProperties: false })
export type PaymentView = Static<typeof PaymentSchema>

/** Payments are USDC transfers (the only currency the catalog accepts). */
const USDC_DECIMALS = findCurrency('USDC')?.decimals ?? 6

export function toPaymentView (payment: PaymentRecord): PaymentView {
  return {
    txHash: payment.txHash,
    logIndex: payment.logIndex,
    blockNumber: payment.blockNumber,
    at: payment.at,
    payer: payment.payer,
    amount: formatAtomic(BigInt(payment.amount), USDC_DECIMALS),
    network: payment.network
  }
}
