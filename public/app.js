// The search page. The URL is the state (query, filters, sort, page, open service): every
// change goes through history, and popstate renders whatever the URL says. All catalog text
// is inserted with textContent or text nodes, never as HTML.
import { highlighted, needlesOf } from './highlight.js'
import { STRINGS, initialLanguage, saveLanguage } from './i18n.js'

const PAGE_SIZE = 10
// One search per settled query: typing schedules it, each keystroke within this pause replaces it.
const DEBOUNCE_MS = 300
const FILTER_FIELDS = ['category', 'chain', 'status']
// testnet=include: test-network listings too (the API leaves them out unless asked).
const STATE_KEYS = ['q', ...FILTER_FIELDS, 'maxPricePerRequest', 'testnet', 'sortBy', 'page', 'service']
const PRICE = /^\d+(\.\d+)?$/

const $ = (id) => document.getElementById(id)
const els = {
  form: $('search-form'),
  q: $('q'),
  filters: $('filters'),
  sort: $('sort'),
  maxPrice: $('max-price'),
  maxPriceError: $('max-price-error'),
  testnet: $('testnet'),
  clearFilters: $('clear-filters'),
  results: $('results'),
  summary: $('summary'),
  state: $('state'),
  list: $('result-list'),
  pager: $('pager'),
  prev: $('prev-page'),
  next: $('next-page'),
  pageInfo: $('page-info'),
  detail: $('detail'),
  detailTitle: $('detail-title'),
  detailBody: $('detail-body'),
  detailClose: $('detail-close'),
  lang: $('lang-toggle')
}

let lang = initialLanguage()
const t = () => STRINGS[lang]

/** Element builder: attributes as properties or attributes, children as nodes or text. */
function h (tag, attrs = {}, ...children) {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue
    if (name === 'class') el.className = value
    else if (name.startsWith('on')) el.addEventListener(name.slice(2), value)
    else el.setAttribute(name, value === true ? '' : String(value))
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue
    el.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
  return el
}

// ---- Reference data: category and network names for facets and results ----

let categories = new Map()
let networkNames = {}
const reference = Promise.all([
  fetch('/api/categories').then((r) => r.ok ? r.json() : []).then((list) => { categories = new Map(list.map((c) => [c.id, c])) }),
  fetch('/assets/networks.json').then((r) => r.ok ? r.json() : {}).then((names) => { networkNames = names })
]).catch(() => {})

function categoryName (id) {
  const category = categories.get(id)
  if (category === undefined) return id
  return lang === 'ja' ? category.nameJa : category.name
}

/** base-sepolia → Base Sepolia; a network without an x402 name keeps its CAIP-2 id. */
function networkName (id) {
  const name = networkNames[id]
  if (name === undefined || name === id) return id
  return name.split('-').map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join(' ')
}

// ---- State in the URL ----

function readState () {
  const params = new URLSearchParams(location.search)
  const state = {}
  for (const key of STATE_KEYS) {
    const value = params.get(key)
    if (value !== null && value !== '') state[key] = value
  }
  const page = Number(state.page)
  state.page = Number.isInteger(page) && page > 1 ? page : 1
  return state
}

function urlOf (state) {
  const params = new URLSearchParams()
  for (const key of STATE_KEYS) {
    const value = state[key]
    if (value === undefined || value === '' || (key === 'page' && value === 1)) continue
    params.set(key, String(value))
  }
  const query = params.toString()
  return query === '' ? location.pathname : `${location.pathname}?${query}`
}

let current = readState()
/** Whether the last history entry was made by typing, so more typing replaces it. */
let typingEntry = false

function navigate (next, { replace = false, typing = false } = {}) {
  const url = urlOf(next)
  if (replace || (typing && typingEntry)) history.replaceState(null, '', url)
  else history.pushState(null, '', url)
  typingEntry = typing
  const searchChanged = STATE_KEYS.some((key) => key !== 'service' && next[key] !== current[key])
  current = next
  render({ search: searchChanged })
}

window.addEventListener('popstate', () => {
  const next = readState()
  const searchChanged = STATE_KEYS.some((key) => key !== 'service' && next[key] !== current[key])
  current = next
  typingEntry = false
  detailPushed = false
  syncControls()
  render({ search: searchChanged })
})

// ---- Controls ----

function syncControls () {
  if (els.q.value !== (current.q ?? '')) els.q.value = current.q ?? ''
  els.sort.value = current.sortBy ?? ''
  if (document.activeElement !== els.maxPrice) els.maxPrice.value = current.maxPricePerRequest ?? ''
  els.testnet.checked = current.testnet === 'include'
  showPriceError(false)
}

let composing = false
let debounce

function scheduleSearch () {
  clearTimeout(debounce)
  debounce = setTimeout(searchFromInput, DEBOUNCE_MS)
}

function searchFromInput () {
  clearTimeout(debounce)
  const q = els.q.value.trim()
  if (q === (current.q ?? '')) return
  navigate({ ...current, q: q === '' ? undefined : q, page: 1, service: undefined }, { typing: true })
}

// Japanese input methods: no search on every composition keystroke, only once the text is committed.
els.q.addEventListener('compositionstart', () => { composing = true; clearTimeout(debounce) })
els.q.addEventListener('compositionend', () => { composing = false; scheduleSearch() })
els.q.addEventListener('input', (event) => {
  if (composing || event.isComposing) return
  scheduleSearch()
})
els.form.addEventListener('submit', (event) => {
  event.preventDefault()
  if (composing) return
  searchFromInput()
  typingEntry = false
})

els.sort.addEventListener('change', () => {
  navigate({ ...current, sortBy: els.sort.value === '' ? undefined : els.sort.value, page: 1 })
})

/** A listing's price: "0.001 USDC / request", or "dynamic" when it is not fixed (pricePerRequest null). */
function priceText (service, strings) {
  if (service.pricing.pricePerRequest === null) return [h('strong', { title: strings.dynamicPriceHint }, strings.dynamicPrice)]
  return [h('strong', {}, `${service.pricing.pricePerRequest} ${service.pricing.currency}`), ` ${strings.perRequest}`]
}

function showPriceError (show) {
  els.maxPriceError.hidden = !show
  els.maxPriceError.textContent = show ? t().maxPriceInvalid : ''
  els.maxPrice.setAttribute('aria-invalid', show ? 'true' : 'false')
}

let priceDebounce
els.maxPrice.addEventListener('input', () => {
  clearTimeout(priceDebounce)
  priceDebounce = setTimeout(() => {
    const value = els.maxPrice.value.trim()
    if (value !== '' && !PRICE.test(value)) { showPriceError(true); return }
    showPriceError(false)
    const next = value === '' ? undefined : value
    if (next !== current.maxPricePerRequest) navigate({ ...current, maxPricePerRequest: next, page: 1 })
  }, DEBOUNCE_MS)
})

els.testnet.addEventListener('change', () => {
  navigate({ ...current, testnet: els.testnet.checked ? 'include' : undefined, page: 1 })
})

els.clearFilters.addEventListener('click', () => clearFilters())

function clearFilters () {
  const next = { ...current, page: 1 }
  for (const key of [...FILTER_FIELDS, 'maxPricePerRequest', 'testnet']) delete next[key]
  els.maxPrice.value = ''
  els.testnet.checked = false
  navigate(next)
}

const hasFilters = () => [...FILTER_FIELDS, 'maxPricePerRequest', 'testnet'].some((key) => current[key] !== undefined)

els.prev.addEventListener('click', () => goToPage(current.page - 1))
els.next.addEventListener('click', () => goToPage(current.page + 1))

function goToPage (page) {
  navigate({ ...current, page })
  els.results.focus({ preventScroll: true })
  els.results.scrollIntoView({ block: 'start' })
}

els.lang.addEventListener('click', () => {
  lang = lang === 'ja' ? 'en' : 'ja'
  saveLanguage(lang)
  applyLanguage()
  detailFor = undefined
  renderAnswer()
  render({ search: false })
})

function applyLanguage () {
  const strings = t()
  document.documentElement.lang = lang
  document.title = strings.title
  for (const el of document.querySelectorAll('[data-i18n]')) {
    const value = strings[el.dataset.i18n]
    if (typeof value === 'string') el.textContent = value
  }
  for (const el of document.querySelectorAll('[data-i18n-label]')) {
    el.setAttribute('aria-label', strings[el.dataset.i18nLabel])
  }
  els.lang.textContent = strings.otherLanguage
  els.lang.lang = lang === 'ja' ? 'en' : 'ja'
  els.lang.setAttribute('aria-label', strings.otherLanguageLabel)
  if (!els.maxPriceError.hidden) els.maxPriceError.textContent = strings.maxPriceInvalid
}

// Filters open beside the results on wide screens, folded above them on a phone.
const wide = window.matchMedia('(min-width: 48rem)')
els.filters.open = wide.matches
wide.addEventListener('change', () => { els.filters.open = wide.matches })

// ---- Search ----

let inflight
/** The last answer, kept to re-render on a language switch without asking again. */
let lastAnswer

async function search () {
  inflight?.abort()
  const q = current.q
  // The examples show at once; the listing follows.
  if (q === undefined && lastAnswer === undefined) renderAnswer()
  const controller = new AbortController()
  inflight = controller
  // Without a query the catalog is listed (most trusted first) with its facets, to browse.
  const params = new URLSearchParams({ q: q ?? '', limit: String(PAGE_SIZE), offset: String((current.page - 1) * PAGE_SIZE), facets: 'category,network,status' })
  for (const key of [...FILTER_FIELDS, 'maxPricePerRequest', 'testnet', 'sortBy']) if (current[key] !== undefined) params.set(key, current[key])
  els.results.setAttribute('aria-busy', 'true')
  try {
    const res = await fetch(`/api/catalog/search?${params}`, { signal: controller.signal, headers: { accept: 'application/json' } })
    const body = await res.json()
    if (controller.signal.aborted) return
    lastAnswer = res.ok ? { q, ok: true, body } : { q, ok: false, message: body?.message ?? res.statusText }
  } catch (err) {
    if (controller.signal.aborted || err?.name === 'AbortError') return
    lastAnswer = { q, ok: false, message: String(err?.message ?? err) }
  }
  inflight = undefined
  els.results.setAttribute('aria-busy', 'false')
  await reference
  renderAnswer()
}

function renderAnswer () {
  const strings = t()
  els.clearFilters.hidden = !hasFilters()
  els.list.replaceChildren()
  els.state.replaceChildren()
  els.pager.hidden = true
  const browsing = lastAnswer === undefined || lastAnswer.q === undefined
  if (browsing) {
    els.state.append(
      h('h2', {}, strings.emptyTitle),
      h('p', {}, strings.emptyText),
      h('ul', { class: 'examples' }, strings.examples.map((example) =>
        h('li', {}, h('button', { type: 'button', class: 'chip', onclick: () => { els.q.value = example; searchFromInput(); typingEntry = false } }, example))))
    )
  }
  if (lastAnswer === undefined) {
    els.summary.textContent = ''
    renderFacets(undefined)
    return
  }
  if (!lastAnswer.ok) {
    els.summary.textContent = ''
    renderFacets(undefined)
    els.state.append(h('p', { class: 'error', role: 'alert' }, strings.error(lastAnswer.message)))
    return
  }
  const { total, results, facetDistribution } = lastAnswer.body
  renderFacets(facetDistribution)
  if (total === 0 && browsing) {
    els.summary.textContent = ''
    els.state.append(hasFilters()
      ? h('p', {}, strings.noResultsFiltered, ' ', h('button', { type: 'button', class: 'link-button', onclick: () => clearFilters() }, strings.clearFilters))
      : h('p', {}, strings.browseEmpty))
    return
  }
  if (total === 0) {
    // The heading says it; a "0 services match" summary above it would say it twice.
    els.summary.textContent = ''
    els.state.append(
      h('h2', {}, strings.noResultsTitle(lastAnswer.q)),
      h('ul', { class: 'tips' }, strings.noResultsTips.map((tip) => h('li', {}, tip)))
    )
    // Node.append would turn a null into the text "null": add the hint only when it applies.
    if (hasFilters()) els.state.append(h('p', {}, strings.noResultsFiltered, ' ', h('button', { type: 'button', class: 'link-button', onclick: () => clearFilters() }, strings.clearFilters)))
    return
  }
  els.summary.textContent = browsing ? strings.browseSummary(total) : strings.summary(total, lastAnswer.q)
  for (const result of results) els.list.append(renderResult(result))
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE))
  if (pages > 1) {
    els.pager.hidden = false
    els.pageInfo.textContent = strings.pageInfo(current.page, pages)
    els.prev.disabled = current.page <= 1
    els.next.disabled = current.page >= pages
  }
}

function statusBadge (status) {
  return h('span', { class: `badge badge-${status}` }, t().statusNames[status] ?? status)
}

/** Said beside the status: a test-network listing takes no real payments. */
function testnetBadge (service) {
  return service.testnet === true ? h('span', { class: 'badge badge-testnet' }, t().testnetBadge) : null
}

function formatUptime (uptime) {
  return typeof uptime === 'number' ? `${uptime.toFixed(uptime >= 99.95 || uptime === Math.round(uptime) ? 0 : 1)}%` : t().notChecked
}

function renderResult ({ service, matches, uptimeScore }) {
  const strings = t()
  const needles = needlesOf(matches)
  const link = h('a', { href: urlOf({ ...current, service: service.id }), class: 'result-link' }, highlighted(service.name, needles))
  link.addEventListener('click', (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    openedFrom = link
    navigate({ ...current, service: service.id })
    detailPushed = true
  })
  const [chain, ...otherChains] = service.supportedChains
  return h('li', { class: 'result' },
    h('article', {},
      h('div', { class: 'result-head' },
        h('h3', { class: 'result-name' }, link),
        h('span', { class: 'badges' }, statusBadge(service.status), testnetBadge(service))),
      h('p', { class: 'result-description' }, highlighted(service.description, needles)),
      h('ul', { class: 'result-meta' },
        h('li', { class: 'price' }, ...priceText(service, strings)),
        h('li', {}, categoryName(service.category)),
        h('li', { class: 'network', title: service.supportedChains.map(networkName).join(', ') },
          networkName(chain ?? service.x402Config.network), otherChains.length > 0 ? ` ${strings.moreChains(otherChains.length)}` : ''),
        h('li', {}, `${strings.trust} ${service.trustScore}`),
        h('li', {}, `${strings.uptime} ${formatUptime(uptimeScore)}`))))
}

/** Facet lists: the values with their counts for the current query and filters, a chosen value kept even at 0. */
function renderFacets (distribution) {
  const strings = t()
  const sources = { category: distribution?.category, chain: distribution?.network, status: distribution?.status }
  const label = { category: categoryName, chain: networkName, status: (s) => strings.statusNames[s] ?? s }
  for (const field of FILTER_FIELDS) {
    const fieldset = document.querySelector(`fieldset[data-field="${field}"]`)
    const options = fieldset.querySelector('.facet-options')
    const counts = { ...(sources[field] ?? {}) }
    const chosen = current[field]
    if (field === 'chain' && chosen !== undefined) {
      // The URL may say base; counts come by CAIP-2 id.
      const id = Object.keys(networkNames).find((key) => key === chosen || networkNames[key] === chosen)
      if (id !== undefined && id !== chosen) { counts[chosen] = counts[id] ?? 0; delete counts[id] }
    }
    if (chosen !== undefined && counts[chosen] === undefined) counts[chosen] = 0
    const entries = Object.entries(counts).sort((a, b) => b[1] - a[1] || String(label[field](a[0])).localeCompare(String(label[field](b[0]))))
    fieldset.hidden = entries.length === 0 && chosen === undefined
    const name = `facet-${field}`
    const radio = (value, text, count) => {
      const id = `${name}-${value === undefined ? 'all' : value.replace(/[^A-Za-z0-9_-]/g, '_')}`
      const input = h('input', { type: 'radio', name, id, value: value ?? '' })
      input.checked = value === chosen
      input.addEventListener('change', () => {
        if (!input.checked) return
        navigate({ ...current, [field]: value, page: 1 })
      })
      return h('div', { class: 'facet-option' }, input,
        h('label', { for: id }, h('span', { class: 'facet-label' }, text), count === undefined ? null : h('span', { class: 'count' }, String(count))))
    }
    // Keep keyboard focus on the same option across the re-render a choice causes.
    const focused = fieldset.contains(document.activeElement) ? document.activeElement.id : undefined
    options.replaceChildren(radio(undefined, strings.all), ...entries.map(([value, count]) => radio(value, label[field](value), count)))
    if (focused !== undefined) document.getElementById(focused)?.focus()
  }
}

// ---- Detail view ----

let openedFrom
let detailFor
/** Whether opening the detail added a history entry, so closing it goes back instead of adding another. */
let detailPushed = false

async function renderDetail () {
  const id = current.service
  if (id === undefined) {
    detailFor = undefined
    if (els.detail.open) els.detail.close()
    return
  }
  if (detailFor === id && els.detail.open) return
  detailFor = id
  const strings = t()
  els.detailTitle.textContent = strings.loading
  els.detailBody.replaceChildren()
  if (!els.detail.open) els.detail.showModal()
  const encoded = encodeURIComponent(id)
  const [serviceRes, statusRes, paymentsRes] = await Promise.all([
    fetch(`/api/services/${encoded}`), fetch(`/api/services/${encoded}/status`), fetch(`/api/services/${encoded}/payments?limit=${LATEST_PAYMENTS}`)
  ]).catch(() => [])
  if (detailFor !== id) return
  if (serviceRes?.ok !== true) {
    els.detailTitle.textContent = strings.notFound
    return
  }
  const service = await serviceRes.json()
  const status = statusRes?.ok === true ? await statusRes.json() : undefined
  const payments = paymentsRes?.ok === true ? await paymentsRes.json() : []
  await reference
  if (detailFor !== id) return
  els.detailTitle.textContent = service.name
  els.detailBody.replaceChildren(...detailContent(service, status, payments))
}

/** A shell-safe curl line: the endpoint in single quotes, any quote in it escaped. */
function curlLine (service) {
  const method = typeof service.method === 'string' && service.method.toUpperCase() !== 'GET' ? ` -X ${service.method.toUpperCase()}` : ''
  return `curl -i${method} '${service.endpoint.replaceAll("'", "'\\''")}'`
}

function dateText (value) {
  if (typeof value !== 'string') return t().never
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString(lang === 'ja' ? 'ja-JP' : 'en-US')
}

/** The newest payments the detail view lists, each with its transaction hash to check on a block explorer. */
const LATEST_PAYMENTS = 5

function paymentsTable (payments) {
  const columns = t().paymentColumns
  return h('table', { class: 'payments' },
    h('thead', {}, h('tr', {}, ['at', 'amount', 'payer', 'txHash'].map((key) => h('th', { scope: 'col' }, columns[key])))),
    h('tbody', {}, payments.map((p) => h('tr', {},
      h('td', {}, dateText(p.at)),
      h('td', { class: 'number' }, p.amount),
      h('td', {}, h('code', { class: 'break' }, p.payer)),
      h('td', {}, h('code', { class: 'break' }, p.txHash))))))
}

/** The input fields the endpoint declares (its call schema's JSON Schema): name, type, required, description. */
function inputFields (callSchema, strings) {
  const schema = callSchema?.inputSchema
  const properties = schema !== null && typeof schema === 'object' ? schema.properties : undefined
  if (properties === null || typeof properties !== 'object' || Object.keys(properties).length === 0) return []
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  const text = (value) => (typeof value === 'string' ? value : Array.isArray(value) ? value.join(' | ') : '')
  const columns = strings.inputColumns
  const where = strings.inputIn[callSchema.inputKind] ?? ''
  return [
    h('h3', {}, strings.inputs, where === '' ? '' : ` · ${where}`),
    h('table', { class: 'inputs', id: 'input-fields' },
      h('thead', {}, h('tr', {}, ['name', 'type', 'required', 'description'].map((key) => h('th', { scope: 'col' }, columns[key])))),
      h('tbody', {}, Object.entries(properties).map(([name, field]) => h('tr', {},
        h('td', {}, h('code', { class: 'break' }, name)),
        h('td', {}, text(field?.type ?? field?.enum)),
        h('td', {}, required.has(name) ? strings.requiredMark : ''),
        h('td', {}, text(field?.description))))))
  ]
}

// A listing whose owner has not proved control of its origin: its words are the registrant's.
function unclaimedNote (service, strings) {
  return service.claimed === false ? [h('p', { class: 'unclaimed' }, strings.unclaimed)] : []
}

function detailContent (service, status, payments = []) {
  const strings = t()
  const row = (term, ...value) => [h('dt', {}, term), h('dd', {}, ...value)]
  const retired = service.retired ?? status?.retired
  const parts = [
    ...(retired != null ? [h('p', { class: 'retired' }, strings.retired(retired.reason, dateText(retired.at)))] : []),
    ...unclaimedNote(service, strings),
    h('p', { class: 'detail-description' }, service.description),
    h('dl', { class: 'facts' },
      row(strings.category, categoryName(service.category)),
      row(strings.price, priceText(service, strings),
        service.pricing.freeQuota > 0 ? ` · ${strings.freeQuota(service.pricing.freeQuota)}` : ''),
      row(strings.endpoint, h('code', { class: 'break' }, service.endpoint)),
      row(strings.method, typeof service.method === 'string' ? service.method : 'GET'),
      row(strings.networks, service.supportedChains.map(networkName).join(', '), service.testnet === true ? [' ', testnetBadge(service)] : null),
      row(strings.payTo, h('code', { class: 'break' }, service.x402Config.paymentAddress)))
  ]
  if (status !== undefined) {
    const names = strings.statusFields
    const value = (key) => {
      if (key === 'status') return statusBadge(status.status)
      if (key === 'uptimeScore') return formatUptime(status.uptimeScore)
      if (key === 'lastChecked' || key === 'lastPaymentAt') return dateText(status[key])
      if (key === 'revenueSource') return strings.revenueSources[status.revenueSource] ?? String(status.revenueSource)
      if (key === 'revenueScope') return strings.revenueScopes[status.revenueScope] ?? String(status.revenueScope)
      // USDC has 6 decimals; toLocaleString's default of 3 would show 0.0105 as 0.011.
      const digits = key === 'totalRevenue' || key === 'revenue30d' ? { maximumFractionDigits: 6 } : {}
      return typeof status[key] === 'number' ? status[key].toLocaleString(lang === 'ja' ? 'ja-JP' : 'en-US', digits) : String(status[key])
    }
    const known = Object.keys(names).filter((key) => key in status)
    const facts = h('dl', { class: 'facts' }, known.map((key) => row(names[key], value(key))))
    // The prober's last verdict, when there is one: { lastProbe: { at, ok, reason, … } } or a bare reason.
    const probe = status.lastProbe
    const reason = (probe !== null && typeof probe === 'object' ? probe.reason : undefined) ?? status.reason
    if (typeof reason === 'string' && reason !== '') {
      const at = probe?.at ?? probe?.checkedAt ?? probe?.time
      facts.append(...row(strings.lastProbe, typeof at === 'string' ? `${reason} (${dateText(at)})` : reason))
    }
    parts.push(h('h3', {}, strings.monitoring), facts)
  }
  if (payments.length > 0) parts.push(h('h3', {}, strings.latestPayments), paymentsTable(payments))
  parts.push(...inputFields(service.callSchema, strings))
  // The declared example input makes the call a real one; without a schema, the bare endpoint.
  const example = service.callSchema?.exampleCall?.curl
  const line = typeof example === 'string' ? example : curlLine(service)
  const copy = h('button', { type: 'button', class: 'copy' }, strings.copy)
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(line)
    } catch {
      // No clipboard permission: select the text so Ctrl+C copies it.
      const range = document.createRange()
      range.selectNodeContents(code)
      getSelection()?.removeAllRanges()
      getSelection()?.addRange(range)
    }
    copy.textContent = strings.copied
    setTimeout(() => { copy.textContent = strings.copy }, 1500)
  })
  const code = h('code', { id: 'curl-example' }, line)
  parts.push(h('h3', {}, strings.callIt), h('div', { class: 'example' }, h('pre', {}, code), copy), h('p', { class: 'hint' }, strings.callHint))
  return parts
}

els.detailClose.addEventListener('click', () => els.detail.close())
// Closing (button, Esc) takes the service out of the URL; the back button closes it too.
els.detail.addEventListener('close', () => {
  detailFor = undefined
  if (current.service !== undefined) {
    if (detailPushed) history.back()
    else navigate({ ...current, service: undefined }, { replace: true })
  }
  detailPushed = false
  openedFrom?.focus()
  openedFrom = undefined
})
els.detail.addEventListener('click', (event) => { if (event.target === els.detail) els.detail.close() })

// ---- Render ----

/** Searches again when the search changed; opening or closing a service leaves the results (and focus) alone. */
function render ({ search: runSearch }) {
  if (runSearch) void search()
  void renderDetail()
}

applyLanguage()
syncControls()
render({ search: true })
