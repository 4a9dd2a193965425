"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createDeliveryWorker = createDeliveryWorker;
exports.queueDepth = queueDepth;
const queue_1 = require("../core/webhooks/queue");
const resolve_host_1 = require("../platform/resolve-host");
const attempt_1 = require("./attempt");
/**
 * Builds the worker; `start()` begins polling the queue.
 * Spec: CONTRACT section 13 (attempts, retries), section 14 (stop after the current attempt).
 */
function createDeliveryWorker(opts) {
    const { db, config, logger } = opts;
    const ctx = {
        db,
        policy: { allowHttp: config.webhookAllowHttp, allowPrivate: config.webhookAllowPrivate },
        resolve: opts.resolve ?? resolve_host_1.resolveHost,
        timeoutMs: opts.timeoutMs ?? 10_000,
        schedule: config.webhookRetrySchedule ?? attempt_1.DEFAULT_RETRY_SCHEDULE,
    };
    let boss;
    const executor = closableExecutor((0, queue_1.knexExecutor)(db));
    let stopping;
    let sweeper;
    const attempt = async (job) => {
        let outcome;
        try {
            outcome = await (0, attempt_1.makeAttempt)(ctx, job.data);
        }
        catch (e) {
            if (!(e instanceof attempt_1.DeliveryBusyError))
                logger.warn({ err: e, deliveryId: job.data.deliveryId }, 'webhook attempt could not be recorded; pg-boss retries the job');
            throw e;
        }
        if (!outcome)
            return;
        logger.info({ deliveryId: job.data.deliveryId, workspaceId: job.data.workspaceId, outcome }, 'webhook attempt');
        try {
            opts.observer?.onOutcome?.(outcome);
        }
        catch (e) {
            logger.warn({ err: e }, 'webhook observer failed');
        }
    };
    // A batch's attempts run side by side. pg-boss completes or fails a batch as a whole: a job of a
    // failed batch that did make its attempt finds its token used when it comes back, and does nothing.
    const handle = async (jobs) => {
        const results = await Promise.allSettled(jobs.map(attempt));
        const failed = results.find((r) => r.status === 'rejected');
        if (failed)
            throw failed.reason;
    };
    return {
        async start() {
            boss = new queue_1.PgBoss({
                db: executor,
                migrate: false,
                schedule: false,
                supervise: true,
                maintenanceIntervalSeconds: 60,
            });
            boss.on('error', (e) => logger.warn({ err: e }, 'webhook queue error'));
            await boss.start();
            // pg-boss waits a polling interval between fetches of one loop: two loops of batches keep the
            // queue moving while one batch waits on slow receivers.
            const workOptions = { pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 1, batchSize: opts.batchSize ?? 5 };
            for (let i = 0; i < 2; i++)
                await boss.work(queue_1.DELIVERY_QUEUE, workOptions, handle);
            sweeper = setInterval(() => {
                (0, attempt_1.requeueStuckDeliveries)(db).then((n) => n > 0 && logger.warn({ deliveries: n }, 'webhook deliveries overdue by 15 min were queued again'), (e) => logger.warn({ err: e }, 'webhook sweep failed'));
            }, 60_000);
            sweeper.unref();
            logger.info('webhook delivery worker started');
        },
        stop() {
            stopping ??= (async () => {
                if (!boss)
                    return;
                clearInterval(sweeper);
                await boss.stop({ graceful: true, wait: true, timeout: 15_000, close: false });
                await executor.close();
                logger.info('webhook delivery worker stopped');
            })();
            return stopping;
        },
    };
}
/**
 * Deliveries waiting for an attempt (status `pending`), across workspaces: the `webhook_queue_depth`
 * gauge of CONTRACT section 14.
 */
async function queueDepth(db) {
    const row = (await db('webhook_deliveries').where('status', 'pending').count({ n: '*' }).first());
    return Number(row?.n ?? 0);
}
/**
 * The executor the worker's pg-boss uses, closable: pg-boss completes a finished job without awaiting
 * it, and its fetch loops wind down on a 1 s timer after `stop()` resolves. `close()` waits for both,
 * then parks any later query, so nothing touches the database once the caller destroys it.
 */
function closableExecutor(inner) {
    const inFlight = new Set();
    let closed = false;
    return {
        executeSql(text, values) {
            if (closed)
                return new Promise(() => undefined);
            const p = inner.executeSql(text, values);
            inFlight.add(p);
            void p.then(() => inFlight.delete(p), () => inFlight.delete(p));
            return p;
        },
        async close() {
            await new Promise((r) => setTimeout(r, 1100));
            await Promise.allSettled([...inFlight]);
            closed = true;
        },
    };
}
//# sourceMappingURL=worker.js.map