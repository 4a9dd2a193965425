/**
 * Topics in Style A (docs/analytics.md, "Topics"): snake_case answers; the handlers are shared
 * (adapters/topics.handlers.ts), the selector is adapters/shared-responses.ts.
 */
import type { Topic } from '../../core/topics/topics.store';
import type { CoreDeps } from '../deps';
import { wholeListA } from '../envelope';
import { topicHandlers } from '../topics.handlers';
import type { TopicA } from '../../wire/types.gen';

/** The Style A shape of a topic. */
export function presentTopicA(t: Topic): TopicA {
  return { id: t.id, name: t.name, query: t.query, tagging: t.tagging, created_at: t.createdAt.toISOString(), updated_at: t.updatedAt.toISOString() };
}

/** The topic handlers in Style A. */
export const topicsA = (deps: CoreDeps) => topicHandlers(deps, { present: presentTopicA, wholeList: wholeListA });
