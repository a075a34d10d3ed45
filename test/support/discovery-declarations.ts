/** Bazaar discovery declarations as providers write them (declareDiscoveryExtension of @x402/extensions), for the call-schema tests. */
import { declareDiscoveryExtension } from '@x402/extensions/bazaar'

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
