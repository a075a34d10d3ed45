/**
 * The ranking's bounded heap keeps exactly the best `need` of what it is offered, in
 * (key, rank) order, however the offers arrive, and a heap reused for a smaller bucket
 * forgets the previous one.
 */
import { test } from 'tap'
import { prng } from '../../../bench/generate.js'
import { TopHeap } from '../../../src/search/embedded/ranking/top-heap.js'

interface Offer { key: number, rank: number, slot: number }

function expected (offers: readonly Offer[], need: number): number[] {
  return [...offers].sort((a, b) => (a.key - b.key) || (a.rank - b.rank)).slice(0, need).map((o) => o.slot)
}

test('keeps the best need offers, best first, over random streams', async (t) => {
  const random = prng(11)
  const heap = new TopHeap()
  let failures = 0
  for (let round = 0; round < 200; round++) {
    const count = Math.floor(random() * 300)
    const need = 1 + Math.floor(random() * 80)
    // Few distinct keys, so many ties fall to the rank; ranks distinct as the trust order's are.
    const ranks = Array.from({ length: count }, (_, i) => i).sort(() => random() - 0.5)
    const offers = ranks.map((rank, slot) => ({ key: Math.floor(random() * 6) * 1e9 + (random() < 0.1 ? 0.5 : 0), rank, slot }))
    heap.reset(need)
    for (const { key, rank, slot } of offers) {
      const admitted = heap.admits(key, rank)
      const kept = expected([...offers.slice(0, slot), { key, rank, slot }], need).includes(slot)
      if (admitted !== kept) failures++
      heap.offer(key, rank, slot)
    }
    const out: number[] = [7]
    heap.drainInto(out)
    if (JSON.stringify(out) !== JSON.stringify([7, ...expected(offers, need)])) {
      t.same(out, [7, ...expected(offers, need)], `round ${round}: ${count} offers, need ${need}`)
      failures++
    }
  }
  t.equal(failures, 0, 'every round kept exactly the best, and admits() agreed with what offer() kept')
})

test('a reused heap holds only the new bucket', async (t) => {
  const heap = new TopHeap()
  heap.reset(100)
  for (let i = 0; i < 100; i++) heap.offer(i, i, i)
  heap.reset(3)
  t.ok(heap.admits(1e12, 0), 'an empty heap admits anything')
  t.equal(heap.worstKey, Infinity, 'and bounds no key')
  heap.offer(5, 1, 50)
  heap.offer(2, 2, 20)
  heap.offer(5, 0, 51)
  heap.offer(9, 3, 90)
  t.equal(heap.worstKey, 5, 'full: the worst kept key')
  t.notOk(heap.admits(5, 2), 'worse than the worst kept (5, 1) on rank')
  t.ok(heap.admits(5, 0.5), 'better than the worst kept on rank')
  const out: number[] = []
  heap.drainInto(out)
  t.same(out, [20, 51, 50])
  const again: number[] = []
  heap.drainInto(again)
  t.same(again, [], 'drained')
})

test('a deep page does not leave its arrays behind', async (t) => {
  const heap = new TopHeap()
  const small = heap.bytes
  heap.reset(100_000)
  for (let i = 0; i < 100_000; i++) heap.offer(100_000 - i, i, i)
  t.ok(heap.bytes > small, 'grown for the page')
  const out: number[] = []
  heap.drainInto(out)
  t.equal(out.length, 100_000)
  t.same(out.slice(0, 3), [99_999, 99_998, 99_997], 'smallest keys first')
  t.equal(heap.bytes, small, 'back to the kept size once drained')
})
