/**
 * Identifiers: a type prefix and 16 random characters from [0-9A-Za-z] (about 95 bits).
 * Prefixes make ids self-describing in logs and support tickets.
 */
import { customAlphabet } from 'nanoid';

const random = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 16);

export const ID_PREFIX = {
  workspace: 'ws',
  apiKey: 'key',
  form: 'frm',
  question: 'q',
  response: 'rsp',
  datatable: 'tbl',
  row: 'row',
  emailEvent: 'ev',
  webhookEndpoint: 'we',
  webhookEvent: 'evt',
  webhookDelivery: 'dlv',
  auditEvent: 'aud',
  responseDeletion: 'rdl',
  erasureRequest: 'era',
  topic: 'top',
  webhookRecovery: 'wrc',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** A new id such as `rsp_4fZ0c1H2kLmN8pQr`. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${random()}`;
}
