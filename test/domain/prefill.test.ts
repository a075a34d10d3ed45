import { test } from 'tap'
import { chooseRequirement, listingText, nameFromDescription, nameFromEndpoint, refreshedText } from '../../src/domain/prefill.js'
import { answerTextOf } from '../../src/prober/answer-text.js'
import type { PaymentRequirement } from '../../src/domain/probe.js'
import { resolveNetwork } from '../../src/domain/networks.js'
import { CategoryInference } from '../../src/search/category-inference.js'
import { loadTokenizer } from '../../src/search/analysis/tokenizer.js'

const BASE_USDC = resolveNetwork('base')?.usdc as string
const entry = (network: string, amount = '1000', asset = BASE_USDC): PaymentRequirement =>
  ({ scheme: 'exact', network, amount, asset, payTo: '0x1111111111111111111111111111111111111111', maxTimeoutSeconds: 60 })

test('names come from serviceName, else the description\'s first sentence, else host and path', async (t) => {
  t.equal(nameFromDescription('Translate text. Fast.'), 'Translate text')
  t.equal(nameFromDescription('天気予報を返す。市区町村ごと。'), '天気予報を返す')
  t.equal(nameFromDescription('Version 1.5 of the API'), 'Version 1.5 of the API', 'a point inside a number ends nothing')
  t.ok(nameFromDescription(`${'word '.repeat(40)}end`).length <= 80, 'at most 80 characters, cut at a word')
  t.equal(nameFromEndpoint('https://api.example.com/v1/weather/?x=1'), 'api.example.com/v1/weather')
  t.same(listingText({ serviceName: 'Sky', description: 'D', tags: ['a', 'A', 'b'] }, 'https://x.example/p', 'GET'), { name: 'Sky', description: 'D', tags: ['A', 'b'] })
  t.same(listingText(undefined, 'https://x.example/p', 'POST'), { name: 'x.example/p', description: 'POST https://x.example/p', tags: [] }, 'an answer that says nothing')
  t.equal(listingText({ description: 'nul\u0000byte' }, 'https://x.example/p', 'GET').description, 'GET https://x.example/p', 'text a listing could not take is not used')
  t.equal(listingText({ description: 'Theirs.' }, 'https://x.example/p', 'GET', { description: 'Mine. Really.' }).name, 'Mine', 'a given description names the listing')
})

test('the listed entry: the network asked for, else the first known one, in USDC', async (t) => {
  t.match(chooseRequirement([entry('eip155:999999'), entry('eip155:8453', '2500')], undefined), { requirement: { network: 'eip155:8453' }, currency: 'USDC', price: '0.0025' })
  t.throws(() => chooseRequirement([entry('eip155:8453')], 'solana'), { field: 'network', message: /./ })
  t.throws(() => chooseRequirement([entry('eip155:999999')], undefined), { field: 'network', message: /no network the catalog knows/ })
  t.throws(() => chooseRequirement([entry('eip155:8453', '1000', '0x0000000000000000000000000000000000000001')], undefined), { field: 'pricing.currency', message: /./ })
  t.throws(() => chooseRequirement([entry('eip155:8453', '0')], undefined), { field: 'pricing.pricePerRequest', message: /./ })
  t.throws(() => chooseRequirement([entry('eip155:8453')], 'nowhere'), { field: 'network', message: /unknown network/ })
})

test('a probe refreshes only prefilled text', async (t) => {
  const service = { name: 'Old', description: 'Old text', tags: ['x'], category: 'other', endpoint: 'https://x.example/p', method: 'GET', prefill: { fields: ['name' as const, 'tags' as const] } }
  t.same(refreshedText(service, { serviceName: 'New', description: 'New text', tags: ['y'] }), { name: 'New', tags: ['y'] })
  t.same(refreshedText({ ...service, prefill: null }, { serviceName: 'New' }), {}, 'nothing prefilled, nothing refreshed')
  t.same(refreshedText(service, undefined), {}, 'an answer without text changes nothing')
})

test('an inferred category follows the refreshed text; a given one stays', async (t) => {
  const infer = new CategoryInference(await loadTokenizer())
  const inferCategory = (text: string): string => infer.infer(text)
  const service = { name: 'Feed', description: 'Hourly weather forecasts', tags: [], category: 'weather', endpoint: 'https://x.example/p', method: 'GET', prefill: { fields: ['description' as const, 'category' as const] } }
  t.same(refreshedText(service, { description: 'Translate text between languages' }, inferCategory), { description: 'Translate text between languages', category: 'translation' })
  t.same(refreshedText(service, { description: 'Weather forecasts for any city' }, inferCategory), { description: 'Weather forecasts for any city' }, 'the same category: only the text changes')
  t.same(refreshedText(service, { description: 'Hourly weather forecasts' }, inferCategory), {}, 'the same text: nothing, not even an inference')
  t.same(refreshedText({ ...service, prefill: { fields: ['description'] } }, { description: 'Translate text between languages' }, inferCategory), { description: 'Translate text between languages' },
    'a given (or owner-set) category stays')
  t.same(refreshedText(service, { description: 'Translate text between languages' }), { description: 'Translate text between languages' }, 'without an inferrer, the text alone')
})

test('answer text: v2 resource through the Bazaar sanitizer, v1 the entry\'s description', async (t) => {
  t.same(answerTextOf({ resource: { url: 'u', description: 'D', serviceName: 'Sky', tags: ['a'] }, accepts: [] }), { description: 'D', serviceName: 'Sky', tags: ['a'] })
  t.same(answerTextOf({ resource: { url: 'u', serviceName: 'x'.repeat(40), tags: ['ok', 'y'.repeat(40)] }, accepts: [] }), { tags: ['ok'] }, 'what the Bazaar rules drop is dropped')
  t.same(answerTextOf({ accepts: [{ description: 'v1 words' }] }), { description: 'v1 words' })
  t.same(answerTextOf({ resource: { url: 'u', description: '  ' }, accepts: [] }), {})
})
