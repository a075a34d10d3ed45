/**
 * The prober: checks that listed endpoints answer 402 with their registered payment
 * requirements (src/prober/). On-demand probes always work; the scheduler runs in this
 * process only with CATALOG_PROBER=embedded and a non-zero CATALOG_PROBE_INTERVAL_S.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'
import type { ProbeOutcome, ProbeTarget } from '../domain/probe.js'
import { HttpEndpointProber, type EndpointAnswer, type OriginDocumentRead } from '../prober/endpoint-prober.js'
import type { ServiceRecord } from '../domain/service.js'
import { ServiceMonitor } from '../prober/monitor.js'
import { ProbeScheduler } from '../prober/scheduler.js'

declare module 'fastify' {
  interface FastifyInstance {
    prober: {
      /** Probes a target now; stores nothing (used for ownership decisions). */
      probe: (target: ProbeTarget) => Promise<ProbeOutcome>
      /** Reads an endpoint's 402 answer (guard, cap, budget, parser of every probe) without judging it; `sameOrigin` when it is proof. */
      read: (endpoint: string, method: string, options?: { sameOrigin?: boolean }) => Promise<EndpointAnswer>
      /** Records a probe made by `read` + judgeAnswer, applying the lifecycle; the service as stored, null when it is gone. */
      record: (id: string, outcome: ProbeOutcome) => Promise<ServiceRecord | null>
      /** Probes a stored service now, records the probe and applies the lifecycle; null when no service has that id. */
      probeService: (id: string) => Promise<ProbeOutcome | null>
      /** GETs a small JSON document the origin of `url` serves itself (guard, cap, budget; body at most `maxBytes`; no redirect off the origin). */
      fetchOriginDocument: (url: string, maxBytes: number) => Promise<OriginDocumentRead>
      /** Asks for a probe of this service soon (after a 201 or a PATCH) without waiting; a no-op when probing is off. */
      enqueue: (id: string) => void
    }
  }
}

export default fp(async function proberPlugin (app: FastifyInstance, opts: { config: Config }) {
  const { config } = opts
  const log = app.log.child({ component: 'prober' })
  // One client for every probe path (scheduler, ownership, on-demand): its per-address cap covers them all.
  const endpointProber = new HttpEndpointProber({ timeoutMs: config.probeTimeoutMs, allowPrivate: config.probeAllowPrivate, perAddress: config.probePerHost })
  const intervalMs = config.probeIntervalS * 1000
  const monitor = new ServiceMonitor(app.store, endpointProber, intervalMs, app.inferCategory)
  const scheduler = intervalMs > 0 && config.prober === 'embedded'
    ? new ProbeScheduler({ store: app.store, monitor, logger: log, concurrency: config.probeConcurrency, perHost: config.probePerHost, includeSeeded: config.probeSeeded })
    : undefined

  app.decorate('prober', {
    probe: async (target: ProbeTarget) => await endpointProber.probe(target),
    read: async (endpoint: string, method: string, options?: { sameOrigin?: boolean }) => await endpointProber.read(endpoint, method, options),
    record: async (id: string, outcome: ProbeOutcome) => await monitor.record(id, outcome),
    probeService: async (id: string) => await monitor.probeService(id),
    fetchOriginDocument: async (url: string, maxBytes: number) => await endpointProber.fetchOriginDocument(url, maxBytes),
    enqueue: (id: string) => {
      if (intervalMs === 0) return
      // Due in the store, so an external prober sees it too; the local scheduler looks at once.
      app.store.markProbeDue(id).then(() => { scheduler?.wake() }, (err: unknown) => { log.error({ err, serviceId: id }, 'could not queue a probe') })
    }
  })
  if (scheduler !== undefined) app.addHook('onReady', async () => { scheduler.start() })
  app.addHook('preClose', async () => {
    await scheduler?.stop()
    await endpointProber.close()
  })
}, { name: 'prober', dependencies: ['store', 'category-inference'] })
