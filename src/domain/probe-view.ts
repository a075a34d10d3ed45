/** Public JSON shapes of probes (TypeBox, also the OpenAPI schemas). */
import { Type, type Static } from '@sinclair/typebox'
import type { ProbeOutcome } from './probe.js'

const NullableInteger = Type.Union([Type.Integer(), Type.Null()])

export const PaymentRequirementSchema = Type.Object({
  scheme: Type.String(),
  network: Type.String({ description: 'CAIP-2 id' }),
  amount: Type.String({ description: 'Atomic units' }),
  asset: Type.String(),
  payTo: Type.String(),
  maxTimeoutSeconds: Type.Number(),
  extra: Type.Optional(Type.Record(Type.String(), Type.Unknown()))
})

export const ProbeSchema = Type.Object({
  checkedAt: Type.String({ format: 'date-time', description: 'When the probe started' }),
  httpStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'Status of the final answer; null when none arrived (refused, timeout, blocked)' }),
  x402Version: NullableInteger,
  latencyMs: NullableInteger,
  answered402: Type.Boolean({ description: 'A valid x402 402 answer arrived (counts as up)' }),
  matched: Type.Boolean({ description: 'It advertised the registered network, payTo and price' }),
  reason: Type.String({ description: 'Why it matched or not, for the provider to act on' }),
  accepts: Type.Union([Type.Array(PaymentRequirementSchema), Type.Null()], { description: 'The advertised payment requirements (v2 shape)' })
}, { additionalProperties: false })
export type ProbeView = Static<typeof ProbeSchema>

/** The status object's summary of the last probe. */
export const LastProbeSchema = Type.Union([Type.Object({
  checkedAt: Type.String({ format: 'date-time' }),
  matched: Type.Boolean(),
  httpStatus: Type.Union([Type.Integer(), Type.Null()]),
  reason: Type.String()
}, { additionalProperties: false }), Type.Null()], { description: 'The last probe and why it matched or not; null before the first' })
export type LastProbeView = Static<typeof LastProbeSchema>

export function toLastProbe (probe: ProbeOutcome | null): LastProbeView {
  return probe === null ? null : { checkedAt: probe.checkedAt, matched: probe.matched, httpStatus: probe.httpStatus, reason: probe.reason }
}

export function toProbeView (probe: ProbeOutcome): ProbeView {
  return { ...probe }
}
