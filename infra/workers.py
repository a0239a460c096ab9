"""Background work: SQS queues with dead-letter queues, and what invokes the event functions.

- a queue per `consumes` key in infra/profiles.py (embed-jobs always: the HTTP functions
  enqueue into it), each with a DLQ after `MAX_RECEIVES` failed receipts;
- an SQS event source mapping per consumer, with partial batch responses, so one bad message
  is retried alone instead of failing its batch;
- the consolidation schedule (EventBridge Scheduler) for a `scheduled` function: a flexible
  window (runs spread over it instead of all environments firing on the minute), two retries
  within an hour, then the event goes to the schedule's own dead-letter queue;
- S3 ObjectCreated notifications into the queue of a function with `s3_trigger_prefix`;
- an on-failure destination for every function invoked asynchronously (the schedule's target): after
  Lambda's two retries the failed event, with its error, goes to `<prefix>-<function>-failures`
  (infra/observability.py alarms on it) instead of being dropped.
"""

from __future__ import annotations

from collections.abc import Iterable

from aws_cdk import Duration, Stack, TimeZone
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_destinations as destinations
from aws_cdk import aws_lambda_event_sources as event_sources
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_notifications as s3n
from aws_cdk import aws_scheduler as scheduler
from aws_cdk import aws_scheduler_targets as scheduler_targets
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.config import EnvConfig
from infra.nag import acknowledge, logical_id
from infra.profiles import (
    CONSOLIDATE_QUEUE,
    EMBED_QUEUE,
    EXPORT_QUEUE,
    EXTRACT_QUEUE,
    UPLOAD_EVENTS_QUEUE,
    profile_for,
)

MAX_RECEIVES = 5
SCHEDULE_FLEXIBLE_WINDOW = Duration.minutes(10)
SCHEDULE_RETRY_ATTEMPTS = 2
SCHEDULE_MAX_EVENT_AGE = Duration.hours(1)  # a missed tick is dropped after this: the next one covers it
ASYNC_RETRY_ATTEMPTS = 2  # Lambda's own retries of an asynchronous invocation that failed
# AWS's guidance for SQS-triggered Lambdas: visibility timeout >= 6x the function timeout,
# so retries of a throttled batch do not make messages visible while still being worked on.
VISIBILITY_FACTOR = 6


def queue_keys(functions: Iterable[str]) -> list[str]:
    """The queues the given functions need: embed-jobs always, others when consumed or sent to."""
    keys = {EMBED_QUEUE}
    for name in functions:
        profile = profile_for(name)
        if profile.consumes:
            keys.add(profile.consumes)
        if profile.consolidate_send:
            keys.add(CONSOLIDATE_QUEUE)
        if profile.extract_send:
            keys.add(EXTRACT_QUEUE)
        if profile.export_send:
            keys.add(EXPORT_QUEUE)
        if profile.upload_events_send:
            keys.add(UPLOAD_EVENTS_QUEUE)
    return sorted(keys)


class WorkQueue(Construct):
    """A job queue and its dead-letter queue, both encrypted and TLS-only."""

    def __init__(self, scope: Construct, id: str, *, config: EnvConfig, key: str, consumer_timeout_s: int) -> None:
        super().__init__(scope, id)
        self.key = key
        self.visibility_timeout_s = VISIBILITY_FACTOR * consumer_timeout_s
        self.dead_letter_queue = sqs.Queue(
            self,
            "DeadLetterQueue",
            queue_name=f"{config.prefix}-{key}-dlq",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=Duration.days(14),  # the maximum: time to look and redrive
        )
        self.queue = sqs.Queue(
            self,
            "Queue",
            queue_name=f"{config.prefix}-{key}",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            visibility_timeout=Duration.seconds(self.visibility_timeout_s),
            retention_period=Duration.days(4),
            dead_letter_queue=sqs.DeadLetterQueue(max_receive_count=MAX_RECEIVES, queue=self.dead_letter_queue),
        )


class WorkQueues(Construct):
    def __init__(self, scope: Construct, id: str, *, config: EnvConfig, functions: Iterable[str]) -> None:
        super().__init__(scope, id)
        names = list(functions)
        self.queues: dict[str, WorkQueue] = {}
        for key in queue_keys(names):
            consumers = [n for n in names if profile_for(n).consumes == key]
            # Without a consumer yet, size for the longest any function may run.
            timeout = max((profile_for(n).timeout_s for n in consumers), default=900)
            construct_id = "".join(part.title() for part in key.split("-"))
            self.queues[key] = WorkQueue(self, construct_id, config=config, key=key, consumer_timeout_s=timeout)

    def get(self, key: str) -> WorkQueue:
        return self.queues[key]


class EventWiring(Construct):
    """Connects each event function to what invokes it, as its profile says."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: EnvConfig,
        functions: dict[str, lambda_.Function],
        queues: WorkQueues,
        uploads_bucket: s3.IBucket,
    ) -> None:
        super().__init__(scope, id)
        self.schedules: dict[str, scheduler.Schedule] = {}
        self.schedule_dead_letter_queues: dict[str, sqs.Queue] = {}
        self.failure_queues: dict[str, sqs.Queue] = {}
        for name, function in functions.items():
            profile = profile_for(name)
            if profile.consumes:
                work = queues.get(profile.consumes)
                if work.visibility_timeout_s < VISIBILITY_FACTOR * profile.timeout_s:
                    raise ValueError(f"{work.key}: visibility timeout below {VISIBILITY_FACTOR}x {name}'s timeout")
                function.add_event_source(
                    event_sources.SqsEventSource(
                        work.queue,
                        batch_size=profile.batch_size,
                        max_batching_window=Duration.seconds(2),
                        report_batch_item_failures=True,
                        # Caps concurrent workers so a backlog cannot exhaust database
                        # connections or the Bedrock quota.
                        max_concurrency=config.worker_max_concurrency,
                    )
                )
            if profile.s3_trigger_prefix:
                if not profile.consumes:
                    raise ValueError(f"{name}: s3_trigger_prefix needs a `consumes` queue")
                uploads_bucket.add_event_notification(
                    s3.EventType.OBJECT_CREATED,
                    s3n.SqsDestination(queues.get(profile.consumes).queue),
                    s3.NotificationKeyFilter(prefix=profile.s3_trigger_prefix),
                )
            if profile.scheduled:
                base = name.title().replace("_", "")
                dead_letters = sqs.Queue(
                    self,
                    f"{base}ScheduleDeadLetterQueue",
                    queue_name=f"{config.prefix}-{name.replace('_', '-')}-schedule-dlq",
                    encryption=sqs.QueueEncryption.SQS_MANAGED,
                    enforce_ssl=True,
                    retention_period=Duration.days(14),
                )
                acknowledge(
                    dead_letters,
                    "AwsSolutions-SQS3",
                    "This queue is itself a dead-letter queue: it holds schedule events the scheduler could not "
                    "deliver after its retries.",
                )
                self.schedule_dead_letter_queues[name] = dead_letters
                self.schedules[name] = scheduler.Schedule(
                    self,
                    f"{base}Schedule",
                    schedule_name=f"{config.prefix}-{name.replace('_', '-')}",
                    description=f"Runs {name} for {config.env}",
                    schedule=_schedule_expression(config),
                    time_window=scheduler.TimeWindow.flexible(SCHEDULE_FLEXIBLE_WINDOW),
                    target=scheduler_targets.LambdaInvoke(
                        function,
                        retry_attempts=SCHEDULE_RETRY_ATTEMPTS,
                        max_event_age=SCHEDULE_MAX_EVENT_AGE,
                        dead_letter_queue=dead_letters,
                    ),
                )
                self._acknowledge_scheduler_role(function)
            if profile.invoked_async:
                self.failure_queues[name] = self._on_failure_destination(config, name, function)

    def _on_failure_destination(self, config: EnvConfig, name: str, function: lambda_.Function) -> sqs.Queue:
        failures = sqs.Queue(
            self,
            f"{name.title().replace('_', '')}FailuresQueue",
            queue_name=f"{config.prefix}-{name.replace('_', '-')}-failures",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=Duration.days(14),  # the maximum: time to look and re-run
        )
        acknowledge(
            failures,
            "AwsSolutions-SQS3",
            "This queue is itself a dead-letter queue: Lambda's on-failure destination for asynchronous "
            "invocations that failed after their retries.",
        )
        function.configure_async_invoke(
            on_failure=destinations.SqsDestination(failures),
            retry_attempts=ASYNC_RETRY_ATTEMPTS,
            max_event_age=SCHEDULE_MAX_EVENT_AGE,
        )
        return failures

    def _acknowledge_scheduler_role(self, function: lambda_.Function) -> None:
        # aws-cdk-lib creates the schedule's role at stack level and grants it invoke on the
        # function and its versions (`<arn>:*`).
        stack = Stack.of(self)
        for child in stack.node.children:
            if child.node.id.startswith("SchedulerRoleForTarget"):
                acknowledge(
                    child,
                    f"AwsSolutions-IAM5[Resource::<{logical_id(function)}.Arn>:*]",
                    "The scheduler role may invoke the consolidation dispatcher and its versions, nothing else.",
                )


def _schedule_expression(config: EnvConfig) -> scheduler.ScheduleExpression:
    expression = config.consolidation_schedule
    if expression.startswith("cron(") or expression.startswith("at("):
        return scheduler.ScheduleExpression.expression(expression, TimeZone.of(config.consolidation_timezone))
    return scheduler.ScheduleExpression.expression(expression)
