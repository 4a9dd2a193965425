import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret } from '../../src/core/api-keys/secrets';
import { checkWebhookUrl, nonPublicReason } from '../../src/core/webhooks/address-policy';
import { signatures } from '../../src/delivery/attempt';
import { retryAfterSeconds } from '../../src/delivery/http-post';
import { splitStatements } from '../../migrations/sql-script';

describe('webhook address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.20.30.40', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.10.1', 'link-local'],
    ['100.64.0.1', 'shared (100.64.0.0/10)'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['fe80::1', 'link-local'],
    ['fd12:3456::1', 'unique local (private)'],
    ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
  ])('calls %s non-public (%s)', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
  });

  it.each([
    // IPv4-compatible IPv6 (::/96, deprecated): refused whatever it carries; Linux does not route it as IPv4.
    ['::127.0.0.1', 'deprecated IPv4-compatible'],
    ['::169.254.169.254', 'deprecated IPv4-compatible'],
    ['::10.0.0.1', 'deprecated IPv4-compatible'],
    ['::8.8.8.8', 'deprecated IPv4-compatible'],
    ['::2', 'deprecated IPv4-compatible'],
    // IPv6 that carries an IPv4 address is judged as that address.
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'cloud metadata'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a00:1::1', 'private'],
    ['2002:c0a8:101::1', 'private'],
    // Other special IPv6 ranges.
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo tunnel'],
    ['fc00::1', 'unique local (private)'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'deprecated site-local'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    ['3fff::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['2001:20::1', 'cryptographic (ORCHID)'],
    ['100::1', 'discard-only'],
    ['5f00::1', 'segment-routing'],
    ['4000::1', 'non-global (outside 2000::/3)'],
    ['1::1', 'non-global (outside 2000::/3)'],
    // IPv4 documentation and benchmarking ranges.
    ['192.0.2.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.175.48.1', 'sinkhole (AS112)'],
  ])('calls %s non-public (%s)', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1', '2a00:1450:4001:80b::200e'])(
    'calls %s public',
    (address) => {
      expect(nonPublicReason(address)).toBeUndefined();
    },
  );

  it('refuses IPv4-compatible IPv6 literals in a URL without resolving them', async () => {
    for (const url of ['https://[::127.0.0.1]/', 'https://[::169.254.169.254]/', 'https://[::10.0.0.1]/', 'https://[0:0:0:0:0:0:7f00:1]/']) {
      const check = await checkWebhookUrl(url, { allowHttp: false, allowPrivate: false }, async () => {
        throw new Error('an IP literal is never resolved');
      });
      expect([url, check]).toEqual([
        url,
        { ok: false, reason: expect.stringMatching(/^`url` must point to a public address; "\[::[0-9a-f:]+\]" is a deprecated IPv4-compatible address\.$/) },
      ]);
    }
  });

  it('refuses a name when any answer carries a non-public IPv4 address inside IPv6', async () => {
    const check = await checkWebhookUrl('https://nat64.test/', { allowHttp: false, allowPrivate: false }, async () => [
      { address: '2606:4700:4700::1111', family: 6 },
      { address: '64:ff9b::7f00:1', family: 6 },
    ]);
    expect(check).toEqual({ ok: false, reason: '`url` must point to a public address; "nat64.test" resolves to 64:ff9b::7f00:1, a loopback address.' });
  });

  const policy = { allowHttp: false, allowPrivate: false };
  it('refuses a name when any of its addresses is private, and says which', async () => {
    const check = await checkWebhookUrl('https://mixed.test/', policy, async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.1', family: 4 },
    ]);
    expect(check).toEqual({ ok: false, reason: '`url` must point to a public address; "mixed.test" resolves to 10.0.0.1, a private address.' });
  });

  it('returns the first checked address of a public name, and marks an unresolved name', async () => {
    const ok = await checkWebhookUrl('https://pub.test/x', policy, async () => [{ address: '8.8.8.8', family: 4 }]);
    expect(ok).toMatchObject({ ok: true, address: { address: '8.8.8.8', family: 4 } });
    const unresolved = await checkWebhookUrl('https://nowhere.test/x', policy, async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    });
    expect(unresolved).toEqual({ ok: false, unresolved: true, reason: 'the host "nowhere.test" does not resolve (ENOTFOUND).' });
  });

  it('normalises IP spellings through the URL parser before judging them', async () => {
    for (const url of ['https://2130706433/', 'https://127.1/', 'https://0x7f000001/', 'https://[::ffff:127.0.0.1]/', 'https://0177.0.0.1/']) {
      const check = await checkWebhookUrl(url, policy, async () => {
        throw new Error('an IP literal is never resolved');
      });
      expect([url, check.ok, check.ok ? '' : check.reason]).toEqual([url, false, expect.stringContaining('loopback')]);
    }
  });

  it('allows http and private addresses only when told to', async () => {
    const check = await checkWebhookUrl('http://127.0.0.1:8080/x', { allowHttp: true, allowPrivate: true }, async () => []);
    expect(check.ok).toBe(true);
  });
});

describe('webhook signing', () => {
  it('makes secrets of 32 random bytes in padded base64', () => {
    const s = generateWebhookSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32);
  });

  it('signs with every secret given; each verifies on its own', () => {
    const [a, b] = [generateWebhookSecret(), generateWebhookSecret()];
    const at = new Date();
    const body = '{"id":"evt_1"}';
    const header = signatures([a, b], 'evt_1', at, body);
    expect(header.split(' ')).toHaveLength(2);
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': header };
    expect(new Webhook(a).verify(body, headers)).toEqual({ id: 'evt_1' });
    expect(new Webhook(b).verify(body, headers)).toEqual({ id: 'evt_1' });
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterSeconds('120')).toBe(120);
    expect(retryAfterSeconds('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('2015-10-21T07:28:00Z'))).toBe(10);
    expect(retryAfterSeconds(undefined)).toBeUndefined();
    expect(retryAfterSeconds('soon')).toBeUndefined();
  });
});

describe('splitStatements (pg-boss scripts on PGlite)', () => {
  it('splits at semicolons outside quotes, comments and dollar-quoted bodies', () => {
    const script = `BEGIN;
SELECT ';' AS "a;b"; -- a comment; still a comment
CREATE FUNCTION f() RETURNS void AS $$ BEGIN PERFORM 1; END; $$ LANGUAGE plpgsql;
SELECT $tag$ ; $tag$;
COMMIT;`;
    expect(splitStatements(script)).toEqual([
      'BEGIN',
      `SELECT ';' AS "a;b"`,
      '-- a comment; still a comment\nCREATE FUNCTION f() RETURNS void AS $$ BEGIN PERFORM 1; END; $$ LANGUAGE plpgsql',
      'SELECT $tag$ ; $tag$',
      'COMMIT',
    ]);
  });
});
