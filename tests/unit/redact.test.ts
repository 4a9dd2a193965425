import { redactUrl } from '../../src/platform/http-log';

describe('redactUrl (docs/writes-keys-limits.md, "Limits, bad bytes and secrets": logs never hold a secret)', () => {
  it('redacts the values of api_key, key, token, t and secret, whatever their case or encoding', () => {
    expect(redactUrl('/api/v1/workspaces?api_key=fa_x&limit=5')).toBe('/api/v1/workspaces?api_key=[redacted]&limit=5');
    expect(redactUrl('/x?KEY=a&Token=b&t=c&secret=d&tt=e')).toBe('/x?KEY=[redacted]&Token=[redacted]&t=[redacted]&secret=[redacted]&tt=e');
    expect(redactUrl('/x?api%5Fkey=fa_x&t')).toBe('/x?api%5Fkey=[redacted]&t=[redacted]');
    expect(redactUrl('/x?a=1&a=2')).toBe('/x?a=1&a=2');
  });

  it('redacts the token of /e/{token}.gif and leaves other paths alone', () => {
    expect(redactUrl('/e/tok_abc.def.gif')).toBe('/e/[redacted].gif');
    expect(redactUrl('/e/tok_abc.gif?t=1')).toBe('/e/[redacted].gif?t=[redacted]');
    expect(redactUrl('/api/v1/workspaces/ws_1/forms')).toBe('/api/v1/workspaces/ws_1/forms');
  });
});
