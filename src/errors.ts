/**
 * Errors the catalog raises on purpose. Each carries a stable `code` clients can
 * match on and the HTTP status it maps to; `cause` keeps the underlying error.
 */
export class CatalogError extends Error {
  readonly code: string
  readonly statusCode: number

  constructor (message: string, code: string, statusCode: number, options?: { cause?: unknown }) {
    super(message, options)
    this.name = new.target.name
    this.code = code
    this.statusCode = statusCode
  }
}

/** Client input that breaks a rule; `field` is the dotted path of the offending field. */
export class ValidationError extends CatalogError {
  readonly field: string

  constructor (field: string, message: string) {
    super(`${field}: ${message}`, 'VALIDATION_ERROR', 400)
    this.field = field
  }
}

export class NotFoundError extends CatalogError {
  constructor (message: string) {
    super(message, 'NOT_FOUND', 404)
  }
}

export class DuplicateEndpointError extends CatalogError {
  readonly field = 'endpoint'

  constructor (endpoint: string, options?: { cause?: unknown }) {
    super(`endpoint: ${endpoint} is already registered`, 'DUPLICATE_ENDPOINT', 409, options)
  }
}

/** An endpoint held by another listing that the endpoint's live 402 answer does not let this registration take over. */
export class EndpointTakenError extends CatalogError {
  readonly field = 'endpoint'

  constructor (reason: string) {
    super(`endpoint: ${reason}`, 'DUPLICATE_ENDPOINT', 409)
  }
}

/** A service removed because another registration of its endpoint matched the endpoint's live answer. */
export class ServiceDisplacedError extends CatalogError {
  constructor (message: string) {
    super(message, 'SERVICE_DISPLACED', 404)
  }
}

/** Authenticated, but the key does not own what it asks to change. */
export class ForbiddenError extends CatalogError {
  constructor (message: string) {
    super(message, 'FORBIDDEN', 403)
  }
}

export class UnauthorizedError extends CatalogError {
  constructor (message: string) {
    super(message, 'UNAUTHORIZED', 401)
  }
}

/** Too many requests from one client in the rate-limit window; Retry-After says when to come back. */
export class RateLimitedError extends CatalogError {
  constructor (message: string) {
    super(message, 'RATE_LIMITED', 429)
  }
}

/** A request body the catalog does not read: not JSON, not UTF-8, or compressed. */
export class UnsupportedMediaTypeError extends CatalogError {
  constructor (message: string) {
    super(message, 'UNSUPPORTED_MEDIA_TYPE', 415)
  }
}

/** A JSON body that does not parse. */
export class InvalidJsonError extends CatalogError {
  constructor (message: string) {
    super(message, 'INVALID_JSON', 400)
  }
}

/** A request broken at the HTTP level (no Host, a method the catalog does not speak). */
export class BadRequestError extends CatalogError {
  constructor (message: string) {
    super(message, 'BAD_REQUEST', 400)
  }
}

export class UriTooLongError extends CatalogError {
  constructor (maxLength: number) {
    super(`the request URL is longer than ${maxLength} characters`, 'URI_TOO_LONG', 414)
  }
}

/** The store cannot serve requests (file unreadable, disk full, connection lost). */
export class StoreUnavailableError extends CatalogError {
  constructor (message: string, options?: { cause?: unknown }) {
    super(message, 'STORE_UNAVAILABLE', 503, options)
  }
}

/** Bad configuration found at start; the message says which variable and why. */
export class ConfigError extends CatalogError {
  constructor (message: string) {
    super(message, 'CONFIG_ERROR', 500)
  }
}

/** The search engine cannot serve requests (server unreachable, key refused, task failed). */
export class SearchUnavailableError extends CatalogError {
  constructor (message: string, options?: { cause?: unknown }) {
    super(message, 'SEARCH_UNAVAILABLE', 503, options)
  }
}

// In-memory indexes (src/lib/service-index.ts, src/search/embedded/index/memory-index.ts).
/** An in-memory index was handed data that breaks what it relies on: a bug in its caller, not client input. */
export class IndexStateError extends CatalogError {
  constructor (message: string) {
    super(message, 'INDEX_STATE', 500)
  }
}

/** A command line the CLI does not take (unknown command or option, a missing or malformed argument): exit 2 with the usage. */
export class UsageError extends CatalogError {
  constructor (message: string) {
    super(message, 'USAGE_ERROR', 400)
  }
}

/** A file the operator named, or one the installation needs, is missing or unreadable. */
export class FileError extends CatalogError {
  constructor (message: string, options?: { cause?: unknown }) {
    super(message, 'FILE_ERROR', 500, options)
  }
}

/** A registration on an origin whose owner proved control of it, by another key. */
export class OriginClaimedError extends CatalogError {
  readonly field = 'endpoint'

  constructor (message: string) {
    super(`endpoint: ${message}`, 'ORIGIN_CLAIMED', 409)
  }
}

/** A claim whose token the origin does not publish (yet). */
export class ClaimNotProvenError extends CatalogError {
  readonly field = 'origin'

  constructor (message: string) {
    super(`origin: ${message}`, 'CLAIM_NOT_PROVEN', 422)
  }
}

/** Registration from the endpoint: the endpoint gave no valid x402 402 answer to fill the listing from. */
export class EndpointNotPayableError extends CatalogError {
  readonly field = 'endpoint'

  constructor (reason: string) {
    super(`endpoint: no valid x402 402 answer to register from: ${reason}`, 'ENDPOINT_NOT_PAYABLE', 422)
  }
}

/** Origin import: the origin's /.well-known/x402 cannot be read as an x402 resource list; nothing was changed. */
export class OriginDocumentError extends CatalogError {
  readonly field = 'origin'

  constructor (reason: string) {
    super(`origin: ${reason}; nothing was changed`, 'INVALID_ORIGIN_DOCUMENT', 422)
  }
}

/** A change-feed cursor this catalog's feed cannot continue from (ahead of its newest change: another catalog's, or from before a reset). */
export class CursorGoneError extends CatalogError {
  readonly field = 'since'

  constructor (message: string) {
    super(`since: ${message}`, 'CURSOR_GONE', 410)
  }
}

/** A source of the same kind and URL is already stored. */
export class DuplicateSourceError extends CatalogError {
  readonly field = 'url'

  constructor (kind: string, url: string) {
    super(`url: a ${kind} source at ${url} is already added`, 'DUPLICATE_SOURCE', 409)
  }
}
