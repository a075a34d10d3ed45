/** Bazaar discovery declarations as providers write them (declareDiscoveryExtension of @x402/extensions), for the call-schema tests. */
import { declareDiscoveryExtension } from '@x402/extensions/bazaar'
import type { ServiceRecord } from '../../src/domain/service.js'

export const WEATHER = declareDiscoveryExtension({
  input: { city: 'Tokyo', units: 'metric' },
  inputSchema: {
    properties: {
      city: { type: 'string', description: 'City to forecast' },
      units: { type: 'string', enum: ['metric', 'imperial'] }
    },
    required: ['city']
  },
  output: { example: { city: 'Tokyo', temperature: 21.5, summary: 'clear' }, schema: { properties: { temperature: { type: 'number' } } } }
})

export const TRANSLATE = declareDiscoveryExtension({
  bodyType: 'json',
  input: { text: 'hello', targetLanguage: 'ja' },
  inputSchema: {
    properties: { text: { type: 'string', description: 'Text to translate' }, targetLanguage: { type: 'string', description: 'ISO 639-1 code' } },
    required: ['text', 'targetLanguage']
  },
  output: { example: { translation: 'こんにちは' } }
})

/** A Bazaar discovery extension as an endpoint declares it, with a query field named `field`. */
export const bazaarDeclaration = (field: string): Record<string, unknown> => ({
  info: { input: { type: 'http', method: 'GET', queryParams: { [field]: 'Tokyo' } } },
  schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { input: { type: 'object', properties: { queryParams: { type: 'object', properties: { [field]: { type: 'string', description: 'the $ref-free "name"' } } } } } } }
})

/** The records with every third service declaring the Bazaar extension (as a probe stores it). */
export const someDeclaring = (records: readonly ServiceRecord[]): ServiceRecord[] =>
  records.map((r, i) => i % 3 === 0 ? { ...r, bazaarExtension: bazaarDeclaration(`field${i}`) } : r)
