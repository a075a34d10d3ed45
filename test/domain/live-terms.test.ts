import { test } from 'tap'
import { fixedAmount, liveTerms } from '../../src/domain/live-terms.js'
import { PREFILLABLE_FIELDS } from '../../src/domain/listing-text.js'
import type { ProbeOutcome } from '../../src/domain/probe.js'

const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const LIVE = '0x3333333333333333333333333333333333333333'
const listing = {
  ownerId: null,
  claimed: false,
  prefill: { fields: [...PREFILLABLE_FIELDS] },
  priceAtomic: 1000 as number | null,
  currency: 'USDC',
  paymentAddress: '0x4444444444444444444444444444444444444444',
  network: 'eip155:8453',
  endpoint: 'https://api.example.com/x',
  method: 'GET' as const
}
const entry = { scheme: 'exact', network: 'eip155:8453', amount: '2500', asset: USDC, payTo: LIVE, maxTimeoutSeconds: 60 }
const outcome = (accepts: ProbeOutcome['accepts'], fields: Partial<ProbeOutcome> = {}): ProbeOutcome => ({
  checkedAt: '2026-11-29T00:00:00.000Z', httpStatus: 402, x402Version: 2, latencyMs: 5, answered402: true, matched: false, reason: 'payTo differs', accepts, ...fields
} as ProbeOutcome)

test('an unowned listing a source gave its terms takes the live answer\'s, judged by them', async (t) => {
  t.match(liveTerms(listing, outcome([entry])), { terms: { priceAtomic: 2500, currency: 'USDC', paymentAddress: LIVE }, outcome: { matched: true, reason: /replace the source's \(payTo differs\)/ } })
  t.match(liveTerms(listing, outcome([{ ...entry, scheme: 'upto' }])), { terms: { priceAtomic: null } }, 'a live answer with no fixed price makes it dynamic')
  t.match(liveTerms({ ...listing, priceAtomic: null }, outcome([entry])), { terms: { priceAtomic: null, paymentAddress: LIVE } }, 'a dynamic price stays dynamic')
  t.match(liveTerms(listing, outcome([{ ...entry, network: 'eip155:1' }, entry])), { terms: { paymentAddress: LIVE } }, 'the entry on the listing\'s network')
})

test('the terms stay when the answer cannot decide them or the listing is not the source\'s to move', async (t) => {
  t.equal(liveTerms({ ...listing, ownerId: 'key_1' }, outcome([entry])), null, 'a key registered it')
  t.equal(liveTerms({ ...listing, claimed: true }, outcome([entry])), null, 'its origin was claimed')
  t.equal(liveTerms({ ...listing, prefill: { fields: ['name', 'description'] } }, outcome([entry])), null, 'its terms were given, not taken from a source')
  t.equal(liveTerms({ ...listing, prefill: null }, outcome([entry])), null)
  t.equal(liveTerms(listing, outcome([entry], { matched: true })), null, 'it matched')
  t.equal(liveTerms(listing, outcome(null, { answered402: false })), null, 'no valid 402')
  t.equal(liveTerms(listing, outcome([{ ...entry, network: 'eip155:1' }])), null, 'nothing on its network')
  t.equal(liveTerms(listing, outcome([{ ...entry, asset: '0x0000000000000000000000000000000000000001' }])), null, 'no USDC')
  t.equal(liveTerms(listing, outcome([{ ...entry, payTo: 'not an address' }])), null, 'a payTo the registration rules refuse')
})

test('fixedAmount: exact, positive, whole, within the highest listed price', async (t) => {
  t.equal(fixedAmount('exact', '1000'), 1000)
  for (const [scheme, amount] of [['exact', ''], ['exact', '0'], ['exact', '000'], ['exact', '1.5'], ['exact', '-1'], ['upto', '1000'], ['exact', '1000000000001']]) {
    t.equal(fixedAmount(scheme as string, amount as string), null, `${scheme} ${JSON.stringify(amount)}`)
  }
})
