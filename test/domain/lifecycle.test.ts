import { test } from 'tap'
import { changesListing, type MonitoringUpdate } from '../../src/domain/lifecycle.js'
import type { PaymentRequirement } from '../../src/domain/probe.js'

const requirement = (amount: string): PaymentRequirement =>
  ({ scheme: 'exact', network: 'eip155:8453', amount, asset: '0xasset', payTo: '0x1111111111111111111111111111111111111111', maxTimeoutSeconds: 60, extra: {} })

test('a probe is a change-feed event only when search or export would show it', async (t) => {
  const before = { status: 'verified' as const, trustScore: 80, paymentRequirements: [requirement('1000')] }
  const update: MonitoringUpdate = { ...before, paymentRequirements: [requirement('1000')], uptimeScore: 50, lastChecked: '2026-01-01T00:00:00.000Z' }
  t.equal(changesListing(before, update), false, 'uptime and lastChecked only; equal requirements in another array')
  t.equal(changesListing(before, { ...update, status: 'unverified' }), true, 'status')
  t.equal(changesListing(before, { ...update, trustScore: 79 }), true, 'trust score')
  t.equal(changesListing(before, { ...update, paymentRequirements: [requirement('2000')] }), true, 'requirements')
  t.equal(changesListing(before, { ...update, paymentRequirements: null }), true, 'requirements gone')
  t.equal(changesListing({ ...before, paymentRequirements: null }, { ...update, paymentRequirements: null }), false, 'none before, none after')
})
