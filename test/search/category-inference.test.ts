import { test } from 'tap'
import { loadTokenizer } from '../../src/search/analysis/tokenizer.js'
import { CategoryInference } from '../../src/search/category-inference.js'

test('a listing\'s text finds its category in English and Japanese, and `other` when nothing fits', async (t) => {
  const inference = new CategoryInference(await loadTokenizer())
  const cases: Array<[string, string]> = [
    ['Hourly weather forecasts for any city.', 'weather'],
    ['東京の天気予報', 'weather'],
    ['Translate text between 100 languages', 'translation'],
    ['Token prices and wallet balances on Base', 'crypto-web3'],
    ['Generate images from a prompt', 'image'],
    ['Send an SMS to a phone number', 'communication'],
    ['Scrape any web page', 'search-scraping'],
    ['株価と為替レート', 'finance'],
    ['Geocoding of a street address', 'maps-geo'],
    ['音声の文字起こし', 'speech-audio'],
    ['Latest news headlines', 'news'],
    ['zzqx plorb', 'other']
  ]
  for (const [text, category] of cases) t.equal(inference.infer(text), category, text)
})
