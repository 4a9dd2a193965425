/**
 * The topic handlers both styles share (docs/analytics.md, "Topics"): each style brings its presenter and its list
 * envelope; the body's fields (`name`, `query`) are spelled alike in both. The selector in shared-responses.ts picks
 * the style. `GET|POST {ws}/topics`, `GET|PATCH|DELETE {ws}/topics/{topic_id}`; every write records its audit event
 * in its own transaction.
 */
import type { Request, RequestHandler } from 'express';
import { topicCreated, topicDeleted, topicUpdated } from '../core/audit/audit-events';
import { recordAudit } from '../core/audit/audit.store';
import { checkTopicInput, createTopic, deleteTopic, getTopic, listTopics, updateTopic, type Topic } from '../core/topics/topics.store';
import { withTransaction } from '../db';
import { auditOrigin } from './audit-origin';
import type { CoreDeps } from './deps';
import { single, type Envelope } from './envelope';
import { bodyOf, param, workspaceOf } from './query-values';
import type { TopicA, TopicB, TopicCreateRequest, TopicPatchRequest } from '../wire/types.gen';

/** What differs between the styles. */
export interface TopicStyle {
  present(t: Topic): TopicA | TopicB;
  wholeList<T>(req: Request, items: T[]): Envelope<T[]>;
}

/** The five handlers of the resource in one style. */
export function topicHandlers(
  { db }: Pick<CoreDeps, 'db'>,
  s: TopicStyle,
): { list: RequestHandler; create: RequestHandler; get: RequestHandler; update: RequestHandler; remove: RequestHandler } {
  return {
    list: async (req, res) => {
      res.json(
        s.wholeList(
          req,
          (await listTopics(db, workspaceOf(req))).map((t) => s.present(t)),
        ),
      );
    },
    create: async (req, res) => {
      const ws = workspaceOf(req);
      const b = bodyOf<TopicCreateRequest>(req);
      const input = (await checkTopicInput(db, { name: b.name, query: b.query }, true)) as { name: string; query: string };
      const created = await withTransaction(db, async (trx) => {
        const t = await createTopic(trx, ws, input);
        await recordAudit(trx, auditOrigin(req), topicCreated(ws, t));
        return t;
      });
      res.status(201).json(single(req, s.present(created)));
    },
    get: async (req, res) => {
      res.json(single(req, s.present(await getTopic(db, workspaceOf(req), param(req, 'topic_id')))));
    },
    update: async (req, res) => {
      const [ws, id] = [workspaceOf(req), param(req, 'topic_id')];
      const b = bodyOf<TopicPatchRequest>(req);
      const patch = await checkTopicInput(db, { name: b.name, query: b.query }, false);
      const updated = await withTransaction(db, async (trx) => {
        const t = await updateTopic(trx, ws, id, patch);
        await recordAudit(trx, auditOrigin(req), topicUpdated(ws, id, patch));
        return t;
      });
      res.json(single(req, s.present(updated)));
    },
    remove: async (req, res) => {
      const [ws, id] = [workspaceOf(req), param(req, 'topic_id')];
      await withTransaction(db, async (trx) => {
        await deleteTopic(trx, ws, id);
        await recordAudit(trx, auditOrigin(req), topicDeleted(ws, id));
      });
      res.status(204).end();
    },
  };
}
