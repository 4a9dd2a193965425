import { redactUrl } from '../../src/platform/http-log';
import { isApiKeyParam, isPersonalParam, isSecretParam } from '../../src/platform/secret-params';

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

  it('redacts the token segment of /d/ and /e/ whatever follows it, in any case (issue 25 item 8)', () => {
    expect(redactUrl('/e/tok.sig.gif/')).toBe('/e/[redacted].gif/');
    expect(redactUrl('/E/tok.sig.GIF')).toBe('/E/[redacted].gif');
    expect(redactUrl('/e/tok.sig')).toBe('/e/[redacted]');
    expect(redactUrl('/d/tok.sig')).toBe('/d/[redacted]');
    expect(redactUrl('/d/tok.sig/export?format=csv&t=dl.sig')).toBe('/d/[redacted]/export?format=csv&t=[redacted]');
    expect(redactUrl('/D/tok.sig/?lang=de')).toBe('/D/[redacted]/?lang=de');
    expect(redactUrl('/f/frm_1?lang=de&T=tok.sig')).toBe('/f/frm_1?lang=de&T=[redacted]');
    expect(redactUrl('/f/frm_1/thanks?lang=de')).toBe('/f/frm_1/thanks?lang=de');
  });

  it('redacts a key or token in the query whatever its spelling', () => {
    const spellings = [
      'apiKey',
      'x-api-key',
      'X-API-Key',
      'api_key',
      'ApiKey',
      'x_api_key',
      'api%5Fkey',
      'access_token',
      '_token',
      'client_secret',
      'password',
    ];
    for (const name of spellings) expect(redactUrl(`/api/v1/workspaces?${name}=fa_x&limit=5`)).toBe(`/api/v1/workspaces?${name}=[redacted]&limit=5`);
    for (const name of ['apiKey', 'X-API-Key', 'x_api_key', 'API_KEY', 'api%5Fkey', 'Api-Key']) expect(isApiKeyParam(name)).toBe(true);
    for (const name of ['key', 'token', 'keyword', 'limit']) expect(isApiKeyParam(name)).toBe(false);
    for (const name of ['limit', 'lang', 'format', 'interval', 'tt']) expect(isSecretParam(name)).toBe(false);
  });

  it('redacts values that can hold a person’s address (docs/data-rights.md, "Logs")', () => {
    expect(redactUrl('/api/v1/workspaces/ws_1/respondents/export?email=canary%40example.com')).toBe(
      '/api/v1/workspaces/ws_1/respondents/export?email=[redacted]',
    );
    expect(redactUrl('/x?respondent_email=a@b.c&limit=5&respondentEmail_in=x')).toBe('/x?respondent_email=[redacted]&limit=5&respondentEmail_in=[redacted]');
    expect(redactUrl('/x?recipient=a&form_id=frm_1')).toBe('/x?recipient=[redacted]&form_id=frm_1');
    // An address anywhere in a value: a filter expression, an answer filter, a search.
    expect(redactUrl('/x?filter=respondent_email%20%3D%20%22canary%40example.com%22&page=2')).toBe('/x?filter=[redacted]&page=2');
    expect(redactUrl('/x?answer=q_mail:canary@example.com&q=hello')).toBe('/x?answer=[redacted]&q=hello');
    expect(isPersonalParam('filter', 'score%20%3E%205')).toBe(false);
    expect(isPersonalParam('EMAIL', '')).toBe(true);
  });
});
