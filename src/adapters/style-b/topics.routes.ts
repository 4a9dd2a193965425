/**
 * Topics in Style B (docs/analytics.md, "Topics"): camelCase answers; the handlers are shared
 * (adapters/topics.handlers.ts), the selector is adapters/shared-responses.ts.
 */
import type { Topic } from '../../core/topics/topics.store';
import type { CoreDeps } from '../deps';
import { wholeListB } from '../envelope';
import { topicHandlers } from '../topics.handlers';
import type { TopicB } from '../../wire/types.gen';

/** The Style B shape of a topic. */
export function presentTopicB(t: Topic): TopicB {
  return { id: t.id, name: t.name, query: t.query, tagging: t.tagging, createdAt: t.createdAt.toISOString(), updatedAt: t.updatedAt.toISOString() };
}

/** The topic handlers in Style B. */
export const topicsB = (deps: CoreDeps) => topicHandlers(deps, { present: presentTopicB, wholeList: wholeListB });
