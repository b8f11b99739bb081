/**
 * Shuffle sharding as kube-apiserver's (k8s.io/apimachinery pkg/util/shufflesharding): a flow's
 * 64-bit hash (the first 8 bytes, little-endian, of sha256(flowSchema NUL distinguisher), as
 * kube's hashFlowID) is dealt into a hand of `handSize` distinct queues out of `deckSize`. Two
 * flows rarely share their whole hand, so one noisy flow cannot fill every queue another uses.
 */
import { createHash } from 'node:crypto';

export function hashFlowId(flowSchema: string, distinguisher: string): bigint {
  const digest = createHash('sha256').update(flowSchema).update(Buffer.of(0)).update(distinguisher).digest();
  return digest.readBigUInt64LE(0);
}

/** The hand of `handSize` distinct card numbers in [0, deckSize), in kube's order. */
export function dealIntoHand(hash: bigint, deckSize: number, handSize: number): number[] {
  const remainders: number[] = [];
  let h = hash;
  for (let i = 0; i < handSize; i++) {
    const d = BigInt(deckSize - i);
    remainders.push(Number(h % d));
    h /= d;
  }
  const hand: number[] = [];
  for (let i = 0; i < handSize; i++) {
    let card = remainders[i];
    for (let j = i; j > 0; j--) if (card >= remainders[j - 1]) card++;
    hand.push(card);
  }
  return hand;
}
