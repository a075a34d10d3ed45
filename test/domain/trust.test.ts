/** The trust score (src/domain/trust.ts). */
import { test } from 'tap'
import { computeTrustScore } from '../../src/domain/trust.js'

test('trust score', async (t) => {
  t.equal(computeTrustScore({ status: 'unverified', uptimeScore: null, usage: null }), 10, 'a new registration')
  t.equal(computeTrustScore({ status: 'verified', uptimeScore: 100, usage: { txCount: 1e9, uniquePayers: 1e6 } }), 100)
  t.equal(computeTrustScore({ status: 'inactive', uptimeScore: null, usage: null }), 0)
  t.ok(computeTrustScore({ status: 'verified', uptimeScore: 99, usage: { txCount: 10, uniquePayers: 2 } }) > computeTrustScore({ status: 'unverified', uptimeScore: 99, usage: { txCount: 10, uniquePayers: 2 } }))
  t.ok(computeTrustScore({ status: 'verified', uptimeScore: 99.9, usage: { txCount: 10, uniquePayers: 2 } }) > computeTrustScore({ status: 'verified', uptimeScore: 80, usage: { txCount: 10, uniquePayers: 2 } }))
  t.equal(computeTrustScore({ status: 'unverified', uptimeScore: 100, usage: null }), computeTrustScore({ status: 'unverified', uptimeScore: null, usage: null }),
    'an unverified listing earns nothing for uptime: a copy of someone else\'s live endpoint must not outrank an honest new listing')
})
