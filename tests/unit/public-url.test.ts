/**
 * PUBLIC_URL and the Docker files (README.md, "Configuration"; docker-compose.yml): with a wildcard HOST and no
 * PUBLIC_URL, links are built on http://localhost:{PORT} and the config says so (the server warns); compose sets
 * PUBLIC_URL and keeps PostgreSQL's data in a named volume; .dockerignore keeps local build output out.
 */
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { loadConfig } from '../../src/config';

const root = path.resolve(__dirname, '../..');

describe('PUBLIC_URL default', () => {
  it.each(['0.0.0.0', '::', '0:0:0:0:0:0:0:0'])('builds links on http://localhost:{PORT} for HOST=%s', (host) => {
    const config = loadConfig({}, { HOST: host, PORT: '8080' });
    expect(config.publicUrl).toBe('http://localhost:8080');
    expect(config.publicUrlGuessed).toBe(true);
  });

  it('keeps HOST when it is an address to reach, and PUBLIC_URL when it is set', () => {
    expect(loadConfig({}, { HOST: '127.0.0.1', PORT: '8080' })).toMatchObject({ publicUrl: 'http://127.0.0.1:8080', publicUrlGuessed: false });
    expect(loadConfig({}, { HOST: '::1', PORT: '8080' })).toMatchObject({ publicUrl: 'http://[::1]:8080', publicUrlGuessed: false });
    expect(loadConfig({}, { HOST: '0.0.0.0', PUBLIC_URL: 'https://feedback.example.com/' })).toMatchObject({
      publicUrl: 'https://feedback.example.com',
      publicUrlGuessed: false,
    });
  });

  it('follows a --port override', () => {
    expect(loadConfig({ port: 4000 }, { HOST: '0.0.0.0' }).publicUrl).toBe('http://localhost:4000');
  });
});

describe('Docker files', () => {
  type Compose = {
    services: Record<string, { environment?: Record<string, string>; volumes?: string[] }>;
    volumes?: Record<string, unknown>;
  };
  const compose = yaml.load(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as Compose;

  it('compose gives the app a PUBLIC_URL on the published port, beside HOST=0.0.0.0', () => {
    expect(compose.services.app!.environment).toMatchObject({ HOST: '0.0.0.0', PORT: '3000', PUBLIC_URL: 'http://localhost:3000' });
    expect(loadConfig({}, compose.services.app!.environment).publicUrlGuessed).toBe(false);
  });

  it('compose keeps PostgreSQL data in a named volume', () => {
    expect(compose.services.postgres!.volumes).toEqual(['pgdata:/var/lib/postgresql/data']);
    expect(Object.keys(compose.volumes ?? {})).toEqual(['pgdata']);
  });

  it('.dockerignore leaves out node_modules, .data, dist and test-artifacts', () => {
    const lines = fs.readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n');
    expect(lines).toEqual(expect.arrayContaining(['node_modules', '.data', 'dist', 'test-artifacts']));
  });
});
