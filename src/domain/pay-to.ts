/**
 * How payment addresses compare: EVM addresses are hex, so checksum case carries no meaning
 * and they compare lower-cased; Solana (base58) addresses are case-sensitive and compare
 * exactly. The store's payTo filter uses the same key (PAY_TO_KEY_SQL, src/store/sqlite/schema.ts).
 */
export function payToKey (address: string): string {
  return address.startsWith('0x') ? address.toLowerCase() : address
}

export function samePayTo (a: string, b: string): boolean {
  return payToKey(a) === payToKey(b)
}
