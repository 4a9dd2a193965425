/**
 * The audit trail's pure parts (docs/security.md, "The audit trail"): masking of `changes` and the record hash.
 */
import { GENESIS_HASH, MASKED, maskChanges, maskUrl, recordHash } from '../../src/core/audit/audit.store';

describe('maskChanges', () => {
  it('masks secret-named members at every depth and keeps a null', () => {
    expect(
      maskChanges({ name: 'CI', secret: 'whsec_x', nested: { api_token: 'abc', Password: 'p', list: [{ client_secret: 's' }] }, previous_secret: null }),
    ).toEqual({ name: 'CI', secret: MASKED, nested: { api_token: MASKED, Password: MASKED, list: [{ client_secret: MASKED }] }, previous_secret: null });
  });

  it('keeps JSON values only: a Date as its ISO text, undefined members left out', () => {
    expect(maskChanges({ at: new Date('2026-01-01T00:00:00.000Z'), gone: undefined, n: 1 })).toEqual({ at: '2026-01-01T00:00:00.000Z', n: 1 });
  });

  it('strips user info and query values from a url member', () => {
    expect(maskUrl('https://user:pw@hooks.example.com/in?token=abc&x=1')).toBe('https://hooks.example.com/in?token=%5Bmasked%5D&x=%5Bmasked%5D');
    expect(maskChanges({ url: 'not a url' })).toEqual({ url: MASKED });
    expect(maskChanges({ url: 'https://hooks.example.com/in' })).toEqual({ url: 'https://hooks.example.com/in' });
  });
});

describe('recordHash', () => {
  const record = {
    id: 'aud_1',
    workspaceId: 'ws_1',
    seq: 1,
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    actor: 'key_1',
    action: 'api_key.created',
    targetType: 'api_key',
    targetId: 'key_2',
    requestId: 'req_1',
    clientAddress: '127.0.0.1',
    changes: { b: 1, a: [1, 2] },
    prevHash: GENESIS_HASH,
  };

  it('is a SHA-256 in hex that does not depend on the order of members', () => {
    const h = recordHash(record);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(recordHash({ ...record, changes: { a: [1, 2], b: 1 } })).toBe(h);
  });

  it('changes with any field, the previous hash included', () => {
    const h = recordHash(record);
    for (const change of [{ actor: 'key_x' }, { seq: 2 }, { prevHash: '1'.repeat(64) }, { changes: { b: 2, a: [1, 2] } }, { createdAt: new Date(1) }]) {
      expect(recordHash({ ...record, ...change })).not.toBe(h);
    }
  });
});
