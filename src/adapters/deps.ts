/** What adapters need from the app: built once in buildApp and passed to router factories. */
import type { Db } from '../db';

export interface CoreDeps {
  db: Db;
}

