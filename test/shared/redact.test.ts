/**
 * The one masking rule (shared/redact.ts): a URL's userinfo anywhere in a
 * text, and the value of a credential-named parameter, whatever surrounds it;
 * nothing else. Each case is one the rule must keep or must mask.
 */
import { describe, expect, it } from 'vitest';
import { isSecretParam, redactSecrets, redactSecretsDeep } from '#shared/redact.ts';

describe('redactSecrets', () => {
  it.each([
    ['http://ci:pw@10.0.0.5:8000/v1', 'http://***@10.0.0.5:8000/v1'],
    ['https://ghp_abc@github.com/x.git', 'https://***@github.com/x.git'],
    // An unencoded @ in the password: the userinfo ends at the last @ before the host, as a URL parser reads it.
    ['postgres://u:p@ss@db:5432/x', 'postgres://***@db:5432/x'],
    ['cannot reach http://u:p@h:1/x: ECONNREFUSED', 'cannot reach http://***@h:1/x: ECONNREFUSED'],
    [
      'postgres://u@db/x?sslmode=require&password=s3&application_name=a',
      'postgres://***@db/x?sslmode=require&password=***&application_name=a',
    ],
    [
      'http://h/?token=t&api_key=k&access_token=a&X-Amz-Signature=s&client_secret=c',
      'http://h/?token=***&api_key=***&access_token=***&X-Amz-Signature=***&client_secret=***',
    ],
    ['host=db password=s3 user=u', 'host=db password=*** user=u'],
    ['--token=abc', '--token=***'],
    [
      '{"baseUrl":"http://u:p@h","note":"a@b","q":"x?passwd=p"}',
      '{"baseUrl":"http://***@h","note":"a@b","q":"x?passwd=***"}',
    ],
  ])('masks %s', (text, masked) => {
    expect(redactSecrets(text)).toBe(masked);
    expect(redactSecrets(masked)).toBe(masked);
  });

  it.each([
    'https://h:1/a@b',
    'user@example.com',
    'http://h/v1?max_tokens=5&model=m&runId=r',
    'ttft=0.1 e2el=2',
    'c2w.phase',
  ])('keeps %s', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it('names: a credential word last, or password/secret/token at the end', () => {
    for (const n of [
      'password',
      'PASSWD',
      'pwd',
      'sslpassword',
      'api-key',
      'apikey',
      'key',
      'auth',
      'X-Amz-Credential',
    ])
      expect(isSecretParam(n), n).toBe(true);
    for (const n of ['max_tokens', 'monkey', 'keys', 'author', 'model', 'sslmode', 'runId'])
      expect(isSecretParam(n), n).toBe(false);
  });

  it('deep: a copy only where a string changed', () => {
    const plain = { a: ['http://h/'], b: 1, c: null };
    expect(redactSecretsDeep(plain)).toBe(plain);
    const e = { type: 'run.started', baseUrl: 'http://u:p@h', nested: [{ m: 'x?token=t' }, 'y'], n: 2 };
    const r = redactSecretsDeep(e);
    expect(r).toEqual({ type: 'run.started', baseUrl: 'http://***@h', nested: [{ m: 'x?token=***' }, 'y'], n: 2 });
    expect(e.baseUrl).toBe('http://u:p@h');
  });
});
