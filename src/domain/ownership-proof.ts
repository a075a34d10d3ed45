/**
 * Ownership proofs, as x402scan reads and checks them: a signature of the bare origin string
 * ("https://api.example.com") by one of the payTo wallets of the origin's resources, listed in
 * its OpenAPI document's `x-discovery.ownershipProofs` or its /.well-known/x402's
 * `ownershipProofs`. EVM: an EIP-191 personal_sign signature (hex, 0x optional). Solana: an
 * ed25519 signature (base58, or hex) of the origin's UTF-8 bytes by the base58 payTo.
 *
 * What a proof proves: wallet P vouches for origin O. It names none of our API keys and
 * anyone can copy a published one, so it never moves a listing to a key (only a token claim
 * does, src/domain/claims.ts); it is shown on the origin's listings paid to P.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto'
import { base58 } from '@scure/base'
import { samePayTo } from './pay-to.js'

/** Proofs read per document, and characters per proof; the rest are ignored (an ed25519 signature in hex is 128). */
export const MAX_OWNERSHIP_PROOFS = 20
export const MAX_OWNERSHIP_PROOF_CHARS = 300

/** A valid proof of an origin as recorded: by which payTo, found in which document (URL), when first checked valid. */
export interface OriginProof {
  address: string
  document: string
  checkedAt: string
}

function proofList (value: unknown): string[] {
  if (!Array.isArray(value)) return []
  const proofs = value.filter((proof): proof is string => typeof proof === 'string' && proof.trim() !== '' && proof.length <= MAX_OWNERSHIP_PROOF_CHARS)
  return [...new Set(proofs.map((proof) => proof.trim()))].slice(0, MAX_OWNERSHIP_PROOFS)
}

function field (value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined
}

/** The proofs of a parsed OpenAPI document (`x-discovery.ownershipProofs`); none when absent or malformed. */
export function openApiOwnershipProofs (document: unknown): string[] {
  return proofList(field(field(document, 'x-discovery'), 'ownershipProofs'))
}

/** The proofs of a parsed /.well-known/x402 document (`ownershipProofs`); none when absent or malformed. */
export function wellKnownOwnershipProofs (document: unknown): string[] {
  return proofList(field(document, 'ownershipProofs'))
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/
const HEX_SIGNATURE = /^(?:0x)?([0-9a-fA-F]+)$/

/** The EVM address whose personal_sign signature of `origin` this is; null when it is none. */
async function evmSigner (origin: string, signature: string): Promise<string | null> {
  const hex = HEX_SIGNATURE.exec(signature)?.[1]
  if (hex === undefined) return null
  try {
    // Loaded when a proof is checked: viem is ~0.3 s to load, and every store opens this module.
    const { recoverMessageAddress } = await import('viem')
    return await recoverMessageAddress({ message: origin, signature: `0x${hex}` })
  } catch {
    return null
  }
}

function decoded (decode: () => Uint8Array): Uint8Array | null {
  try {
    return decode()
  } catch {
    return null
  }
}

/** The ed25519 public key a base58 Solana address is; null when it is none. */
function solanaKey (payTo: string): KeyObject | null {
  const raw = decoded(() => base58.decode(payTo))
  if (raw?.length !== 32) return null
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' })
  } catch {
    return null
  }
}

/** The 64-byte signatures a proof may be: base58 first, as x402scan reads it, then hex. */
function solanaSignatures (signature: string): Uint8Array[] {
  const hex = HEX_SIGNATURE.exec(signature)?.[1]
  return [decoded(() => base58.decode(signature)), hex === undefined ? null : Buffer.from(hex, 'hex')]
    .filter((bytes): bytes is Uint8Array => bytes?.length === 64)
}

function verifySolana (origin: string, signatures: readonly Uint8Array[], key: KeyObject | null): boolean {
  return key !== null && signatures.some((bytes) => verify(null, Buffer.from(origin, 'utf8'), key, bytes))
}

/**
 * Whether `signature` is `payTo`'s signature of `origin` (the exact string: another port, a
 * path or a trailing slash is another message). A malformed signature or address is simply not valid.
 */
export async function verifyOwnershipProof (origin: string, signature: string, payTo: string): Promise<boolean> {
  if (EVM_ADDRESS.test(payTo)) {
    const signer = await evmSigner(origin, signature)
    return signer !== null && samePayTo(signer, payTo)
  }
  if (SOLANA_ADDRESS.test(payTo)) return verifySolana(origin, solanaSignatures(signature), solanaKey(payTo))
  return false
}

/**
 * The payTos (of `payTos`, once each) that some proof of `proofs` is a valid signature of
 * `origin` by. Each proof is decoded (an EVM one recovered) once, not per payTo.
 */
export async function provenPayTos (origin: string, proofs: readonly string[], payTos: readonly string[]): Promise<string[]> {
  const distinct = payTos.filter((payTo, i) => payTos.findIndex((other) => samePayTo(other, payTo)) === i)
  const signers = (await Promise.all(proofs.map(async (proof) => await evmSigner(origin, proof)))).filter((signer) => signer !== null)
  const signatures = proofs.flatMap(solanaSignatures)
  return distinct.filter((payTo) => EVM_ADDRESS.test(payTo)
    ? signers.some((signer) => samePayTo(signer, payTo))
    : SOLANA_ADDRESS.test(payTo) && verifySolana(origin, signatures, solanaKey(payTo)))
}

/** The proof among an origin's that its listing paid to `payTo` shows: by that payTo (EVM case-insensitively, Solana exactly); null when none. */
export function proofFor (proofs: readonly OriginProof[], payTo: string): OriginProof | null {
  return proofs.find((proof) => samePayTo(proof.address, payTo)) ?? null
}

/**
 * An origin's proofs as a new read found them, against what is stored: a proof by the same
 * address in the same document keeps its stored checkedAt (when first found valid); `changed`
 * when the set of (address, document) differs, which is what a listing's detail shows.
 */
export function mergedProofs (stored: readonly OriginProof[], fresh: readonly OriginProof[]): { proofs: OriginProof[], changed: boolean } {
  const same = (a: OriginProof, b: OriginProof): boolean => samePayTo(a.address, b.address) && a.document === b.document
  const proofs = fresh.map((proof) => ({ ...proof, checkedAt: stored.find((old) => same(old, proof))?.checkedAt ?? proof.checkedAt }))
  const changed = proofs.length !== stored.length || proofs.some((proof) => !stored.some((old) => same(old, proof)))
  return { proofs, changed }
}
