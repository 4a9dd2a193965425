/**
 * The ordered list of migrations, imported statically so the same list runs from TypeScript (tests)
 * and from the compiled build, on PostgreSQL and on embedded PGlite alike.
 */
import type { Knex } from 'knex';
import * as m001 from './20261122_001_schema';
import * as m002 from './20261123_002_collect';
import * as m003 from './20261123_003_links_pages';
import * as m004 from './20261123_004_webhook_delivery';
import * as m005 from './20261123_005_analytics';
import * as m006 from './20261124_006_deep_pages';
import * as m007 from './20261124_007_key_notify';
import * as m008 from './20261124_008_retention';
import * as m009 from './20261124_009_operation_usage';
import * as m010 from './20261125_010_dashboard_links';
import * as m011 from './20261126_011_key_lineage';
import * as m012 from './20261126_012_email_link_uses';
import * as m013 from './20261127_013_answer_filters';
import * as m014 from './20261127_014_search';
import * as m015 from './20261127_015_sentiment';
import * as m016 from './20261127_016_response_deletes';
import * as m017 from './20261127_017_audit';
import * as m018 from './20261127_018_traceparent';
import * as m019 from './20261127_019_erasure';
import * as m020 from './20261127_020_topics';
import * as m021 from './20261127_021_keywords';
import * as m022 from './20261127_022_event_log';
import * as m025 from './20261127_025_webhook_recovery';
import * as m026 from './20261127_026_audit_seal';
import * as m027 from './20261127_027_change_marks';
import * as m028 from './20261127_028_event_notify';
import * as m029 from './20261127_029_answer_rollup_question_idx';
import * as m030 from './20261127_030_change_totals';

export interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

export const migrations: readonly Migration[] = [
  { name: '20261122_001_schema', ...m001 },
  { name: '20261123_002_collect', ...m002 },
  { name: '20261123_003_links_pages', ...m003 },
  { name: '20261123_004_webhook_delivery', ...m004 },
  { name: '20261123_005_analytics', ...m005 },
  { name: '20261124_006_deep_pages', ...m006 },
  { name: '20261124_007_key_notify', ...m007 },
  { name: '20261124_008_retention', ...m008 },
  { name: '20261124_009_operation_usage', ...m009 },
  { name: '20261125_010_dashboard_links', ...m010 },
  { name: '20261126_011_key_lineage', ...m011 },
  { name: '20261126_012_email_link_uses', ...m012 },
  { name: '20261127_013_answer_filters', ...m013 },
  { name: '20261127_014_search', ...m014 },
  { name: '20261127_015_sentiment', ...m015 },
  { name: '20261127_016_response_deletes', ...m016 },
  { name: '20261127_017_audit', ...m017 },
  { name: '20261127_018_traceparent', ...m018 },
  { name: '20261127_019_erasure', ...m019 },
  { name: '20261127_020_topics', ...m020 },
  { name: '20261127_021_keywords', ...m021 },
  { name: '20261127_022_event_log', ...m022 },
  { name: '20261127_025_webhook_recovery', ...m025 },
  { name: '20261127_026_audit_seal', ...m026 },
  { name: '20261127_027_change_marks', ...m027 },
  { name: '20261127_028_event_notify', ...m028 },
  { name: '20261127_029_answer_rollup_question_idx', ...m029 },
  { name: '20261127_030_change_totals', ...m030 },
];
