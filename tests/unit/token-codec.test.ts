/**
 * The signed-token codec of email and dashboard links (src/core/links/token-codec.ts; docs/collecting.md,
 * "Email links"): a token opens only exactly as it was sealed.
 */
import { randomBytes } from 'node:crypto';
import { openToken, sealToken } from '../../src/core/links/token-codec';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('token codec', () => {
  const secret = randomBytes(32);

  it('opens what it sealed', () => {
    expect(openToken(secret, sealToken(secret, { a: 1 }))).toEqual({ a: 1 });
  });

  it('refuses a signature that decodes to the same bytes but is spelled otherwise', () => {
    // 32 signature bytes are 43 characters; the last carries 4 bits and 2 unused ones, so its
    // neighbour in the alphabet (index + 1) decodes alike.
    for (let i = 0; i < 20; i++) {
      const token = sealToken(secret, { i });
      const last = ALPHABET.indexOf(token.at(-1)!);
      expect(last % 4).toBe(0);
      const respelled = token.slice(0, -1) + ALPHABET[last + 1]!;
      expect(Buffer.from(respelled.split('.')[1]!, 'base64url')).toEqual(Buffer.from(token.split('.')[1]!, 'base64url'));
      expect(openToken(secret, respelled)).toBeUndefined();
    }
  });

  it('refuses another secret, a changed payload and stray characters', () => {
    const token = sealToken(secret, { a: 1 });
    expect(openToken(randomBytes(32), token)).toBeUndefined();
    expect(openToken(secret, `${sealToken(secret, { a: 2 }).split('.')[0]}.${token.split('.')[1]}`)).toBeUndefined();
    expect(openToken(secret, `${token}=`)).toBeUndefined();
  });
});
