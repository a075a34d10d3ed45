/** How the app starts: what its plugins do before it serves. */
import { test } from 'tap'
import { build } from './helper.js'

test('start work has no time limit: indexing a large catalog at start on a busy machine must not abort it', async (t) => {
  const app = await build(t, { seed: 'none' })
  await app.ready()
  // Fastify's default (10 s) failed starts with "Plugin did not start in time" under load.
  t.equal(app.initialConfig.pluginTimeout, 0)
})
