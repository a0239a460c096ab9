"""Alarms and a dashboard: what someone on call looks at first.

Alarms (all into one SNS topic, mailed to `alarm_email`, and into `alarm_topic_arn` when set):
- every dead-letter queue holding a message (something failed MAX_RECEIVES times);
- every on-failure destination of an asynchronously invoked function holding an event;
- the oldest message in a job queue older than 15 minutes (the worker is not keeping up);
- every function's errors (crashes and timeouts, not 4xx answers);
- handled errors: a route that caught a bug and answered 500 ("unhandled error" in its log, which
  Lambda's Errors metric never sees), an MCP tool that failed, an authorizer that raised;
- every function at its capacity: throttled, or at 90% of its reserved concurrency;
- the API's p95 latency; its 5xx answers other than 503 (read from the access log), and 503s that
  last 15 minutes (a resuming Aurora answers 503 for ~15-30 s by design; longer is an outage);
- Aurora pinned at its maximum capacity, its connections near max_connections, and connections the
  database refused as too many (engram.core.db logs each);
- consolidation: a run that failed (counted from the worker's "consolidation cycle" log lines),
  and a schedule event the scheduler could not deliver (its dead-letter queue).
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_rds as rds
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.config import EnvConfig
from infra.connections import ConnectionPlan
from infra.nag import acknowledge, main_resource
from infra.workers import WorkQueues

PERIOD = Duration.minutes(5)
# Log messages the code writes when it answers a bug or a full database (engram_http.errors,
# engram_mcp.server, engram_http.authorizer, engram.core.db): metric filters count them.
UNHANDLED_ERROR_LOG = "unhandled error"
AUTHORIZER_FAILED_LOG = "authorizer failed: the route will check the key"
DATABASE_BUSY_LOG = "database refused the connection: too many clients"
CAPACITY_SHARE = 0.9  # a function at this share of its reserved concurrency is about to throttle
CONNECTIONS_SHARE = 0.8  # Aurora's connections at this share of max_connections
SUSTAINED_503_PERIODS = 3
QUEUE_AGE_ALARM_SECONDS = 900
CONSOLIDATION_WORKER = "consolidation_worker"
CONSOLIDATION_DISPATCHER = "consolidation_dispatcher"


class Observability(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: EnvConfig,
        functions: dict[str, lambda_.Function],
        queues: WorkQueues,
        http_api: apigwv2.HttpApi,
        access_logs: logs.ILogGroup,
        cluster: rds.DatabaseCluster,
        connection_plan: ConnectionPlan,
        schedule_dead_letter_queues: dict[str, sqs.Queue] | None = None,
        failure_queues: dict[str, sqs.Queue] | None = None,
    ) -> None:
        super().__init__(scope, id)
        self.config = config
        self.topic = sns.Topic(self, "AlarmTopic", topic_name=f"{config.prefix}-alarms", enforce_ssl=True)
        acknowledge(
            main_resource(self.topic),
            "AwsSolutions-SNS2",
            "Alarm notifications carry no customer data, and CloudWatch alarms cannot publish to a topic "
            "encrypted with the AWS-managed SNS key; a customer-managed key would cost more than it protects.",
        )
        if config.alarm_email:
            self.topic.add_subscription(subscriptions.EmailSubscription(config.alarm_email))
        # An existing topic (on-call paging, chat): each alarm publishes to it as well.
        self.external_topic = (
            sns.Topic.from_topic_arn(self, "ExternalAlarmTopic", config.alarm_topic_arn)
            if config.alarm_topic_arn
            else None
        )
        self.alarms: list[cloudwatch.Alarm] = []

        for work in queues.queues.values():
            self._alarm(
                f"{work.key}-dlq-depth",
                work.dead_letter_queue.metric_approximate_number_of_messages_visible(
                    period=PERIOD, statistic="Maximum"
                ),
                threshold=1,
                description=f"Messages in the {work.key} dead-letter queue: inspect and redrive.",
            )
            self._alarm(
                f"{work.key}-oldest-message",
                work.queue.metric_approximate_age_of_oldest_message(period=PERIOD, statistic="Maximum"),
                threshold=QUEUE_AGE_ALARM_SECONDS,
                description=f"{work.key} has a backlog older than {QUEUE_AGE_ALARM_SECONDS // 60} minutes.",
                periods=3,
            )
        reserved = {f.function: f.concurrency for f in connection_plan.functions}
        for name, function in functions.items():
            self._alarm(
                f"{name.replace('_', '-')}-errors",
                function.metric_errors(period=PERIOD, statistic="Sum"),
                threshold=config.function_error_threshold,
                description=f"{name} raised or timed out.",
            )
            if name in reserved:
                self._alarm(
                    f"{name.replace('_', '-')}-at-capacity",
                    cloudwatch.MathExpression(
                        expression=f"throttles + IF(concurrency >= {CAPACITY_SHARE * reserved[name]:g}, 1, 0)",
                        using_metrics={
                            "throttles": function.metric_throttles(period=PERIOD, statistic="Sum"),
                            "concurrency": function.metric("ConcurrentExecutions", period=PERIOD, statistic="Maximum"),
                        },
                        label=f"{name} throttles (+1 at {CAPACITY_SHARE:.0%} of {reserved[name]} reserved)",
                        period=PERIOD,
                    ),
                    threshold=1,
                    description=f"{name} was throttled or ran at {CAPACITY_SHARE:.0%} of its reserved concurrency "
                    f"({reserved[name]}): raise it in cdk.json within the connection budget (python -m "
                    "infra.connections), or find what floods it.",
                )
        self.handled_errors = self._count_logs(
            "HandledErrors",
            [f for n, f in functions.items() if n in reserved],
            logs.FilterPattern.any(
                logs.FilterPattern.string_value("$.message", "=", UNHANDLED_ERROR_LOG),
                logs.FilterPattern.string_value("$.message", "=", AUTHORIZER_FAILED_LOG),
            ),
        )
        self._alarm(
            "handled-errors",
            self.handled_errors,
            threshold=1,
            description="A route answered 500 for a bug it caught, an MCP tool failed, or the authorizer raised: "
            'the function\'s log has the traceback (message "unhandled error").',
        )
        self.connections_refused = self._count_logs(
            "DatabaseConnectionsRefused",
            list(functions.values()),
            logs.FilterPattern.string_value("$.message", "=", DATABASE_BUSY_LOG),
        )
        self._alarm(
            "db-connections-refused",
            self.connections_refused,
            threshold=1,
            description="The database refused connections as too many (503 database_busy): see the connections "
            "alarm and each function's reserved concurrency.",
        )
        connections = cluster.metric_database_connections(period=PERIOD, statistic="Maximum")
        self._alarm(
            "db-connections-high",
            connections,
            threshold=int(CONNECTIONS_SHARE * connection_plan.max_connections),
            description=f"Aurora holds over {CONNECTIONS_SHARE:.0%} of its ~{connection_plan.max_connections} "
            "connections.",
        )
        latency = http_api.metric_latency(period=PERIOD, statistic="p95")
        self._alarm(
            "api-p95-latency",
            latency,
            threshold=config.p95_latency_ms,
            description=f"API p95 latency above {config.p95_latency_ms} ms for 15 minutes.",
            periods=3,
        )
        # API Gateway's 5xx metric counts every 503 of a resume. The access log has each answer's status
        # (a string), so the alarm counts 5xx but 503, and 503s alone only when they last.
        server_errors = self._access_log_metric(
            "ApiServerErrors",
            access_logs,
            logs.FilterPattern.all(
                logs.FilterPattern.string_value("$.status", "=", "5*"),
                logs.FilterPattern.string_value("$.status", "!=", "503"),
            ),
        )
        self._alarm(
            "api-5xx",
            server_errors,
            threshold=config.api_5xx_threshold,
            description="The API answered 500, 502 or 504 (a bug, a throttled function, a timeout); "
            "503s of a resuming database are left out.",
        )
        unavailable = self._access_log_metric(
            "ApiUnavailable", access_logs, logs.FilterPattern.string_value("$.status", "=", "503")
        )
        self._alarm(
            "api-503-sustained",
            unavailable,
            threshold=1,
            description=f"The API has answered 503 for {SUSTAINED_503_PERIODS * 5} minutes: longer than any "
            "Aurora resume; a dependency is down.",
            periods=SUSTAINED_503_PERIODS,
        )
        capacity = cluster.metric_serverless_database_capacity(period=PERIOD, statistic="Maximum")
        self._alarm(
            "db-capacity-at-max",
            capacity,
            threshold=config.db_max_acu,
            description="Aurora has been at its maximum ACUs for 30 minutes: raise db_max_acu.",
            periods=6,
        )
        for name, dead_letters in (schedule_dead_letter_queues or {}).items():
            self._alarm(
                f"{name.replace('_', '-')}-schedule-dlq-depth",
                dead_letters.metric_approximate_number_of_messages_visible(period=PERIOD, statistic="Maximum"),
                threshold=1,
                description=f"The scheduler could not invoke {name} after its retries: see its dead-letter queue.",
            )
        for name, failures in (failure_queues or {}).items():
            self._alarm(
                f"{name.replace('_', '-')}-failures-depth",
                failures.metric_approximate_number_of_messages_visible(period=PERIOD, statistic="Maximum"),
                threshold=1,
                description=f"{name} failed after Lambda's retries of an asynchronous invocation: the event and "
                "its error are in its -failures queue.",
            )
        self.consolidation_metrics = self._consolidation_metrics(functions)
        if "failed" in self.consolidation_metrics:
            self._alarm(
                "consolidation-run-failures",
                self.consolidation_metrics["failed"],
                threshold=1,
                description="A consolidation run failed: GET /v1/consolidation-runs/{id} says why "
                "(and the consolidate-jobs dead-letter queue holds its message when the worker kept dying).",
            )

        self.dashboard = self._dashboard(functions, queues, http_api, cluster, latency, server_errors, capacity)
        self.dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Bugs answered and connections refused",
                left=[self.handled_errors, self.connections_refused],
                right=[unavailable],
                width=8,
            )
        )
        if self.consolidation_metrics:
            self._consolidation_widgets(functions, schedule_dead_letter_queues or {})

    def _count_logs(
        self, metric_name: str, functions: list[lambda_.Function], pattern: logs.IFilterPattern
    ) -> cloudwatch.Metric:
        """One metric (no dimensions) counted from the log lines of every given function."""
        namespace = f"Engram/{self.config.env}"
        for function in functions:
            logs.MetricFilter(
                self,
                f"{function.node.id}{metric_name}Filter",
                log_group=function.log_group,
                metric_namespace=namespace,
                metric_name=metric_name,
                filter_pattern=pattern,
                metric_value="1",
            )
        return cloudwatch.Metric(
            namespace=namespace, metric_name=metric_name, period=PERIOD, statistic="Sum", label=metric_name
        )

    def _access_log_metric(
        self, metric_name: str, access_logs: logs.ILogGroup, pattern: logs.IFilterPattern
    ) -> cloudwatch.Metric:
        metric_filter = logs.MetricFilter(
            self,
            f"{metric_name}Filter",
            log_group=access_logs,
            metric_namespace=f"Engram/{self.config.env}",
            metric_name=metric_name,
            filter_pattern=pattern,
            metric_value="1",
        )
        return metric_filter.metric(period=PERIOD, statistic="Sum", label=metric_name)

    def _consolidation_metrics(self, functions: dict[str, lambda_.Function]) -> dict[str, cloudwatch.Metric]:
        """Metrics counted from the consolidation functions' JSON log lines (engram.consolidation.dispatch
        logs one "consolidation cycle" line per worker cycle and one "consolidation dispatched" per tick)."""
        namespace = f"Engram/{self.config.env}"
        found: dict[str, cloudwatch.Metric] = {}
        worker = functions.get(CONSOLIDATION_WORKER)
        if worker is not None:
            for status, metric_name in (
                ("done", "ConsolidationRunsDone"),
                ("continue", "ConsolidationContinuations"),
                ("failed", "ConsolidationRunsFailed"),
                ("retry", "ConsolidationCycleRetries"),
            ):
                metric_filter = logs.MetricFilter(
                    self,
                    f"{metric_name}Filter",
                    log_group=worker.log_group,
                    metric_namespace=namespace,
                    metric_name=metric_name,
                    filter_pattern=logs.FilterPattern.all(
                        logs.FilterPattern.string_value("$.message", "=", "consolidation cycle"),
                        logs.FilterPattern.string_value("$.status", "=", status),
                    ),
                    metric_value="1",
                    default_value=0,
                )
                found[status] = metric_filter.metric(period=PERIOD, statistic="Sum", label=metric_name)
        dispatcher = functions.get(CONSOLIDATION_DISPATCHER)
        if dispatcher is not None:
            metric_filter = logs.MetricFilter(
                self,
                "ConsolidationRunsStartedFilter",
                log_group=dispatcher.log_group,
                metric_namespace=namespace,
                metric_name="ConsolidationRunsStarted",
                filter_pattern=logs.FilterPattern.string_value("$.message", "=", "consolidation dispatched"),
                metric_value="$.started",
            )
            found["started"] = metric_filter.metric(period=PERIOD, statistic="Sum", label="ConsolidationRunsStarted")
        return found

    def _consolidation_widgets(
        self, functions: dict[str, lambda_.Function], schedule_dead_letter_queues: dict[str, sqs.Queue]
    ) -> None:
        metrics = self.consolidation_metrics
        widgets: list[cloudwatch.IWidget] = [
            cloudwatch.GraphWidget(
                title="Consolidation runs",
                left=[metrics[k] for k in ("started", "done", "continue") if k in metrics],
                right=[metrics[k] for k in ("failed", "retry") if k in metrics],
                width=8,
            )
        ]
        worker = functions.get(CONSOLIDATION_WORKER)
        if worker is not None:
            widgets.append(
                cloudwatch.GraphWidget(
                    title="Consolidation worker duration (ms)",
                    left=[
                        worker.metric_duration(period=PERIOD, statistic="p50", label="p50"),
                        worker.metric_duration(period=PERIOD, statistic="Maximum", label="max"),
                    ],
                    right=[worker.metric_invocations(period=PERIOD, label="invocations")],
                    width=8,
                )
            )
        if schedule_dead_letter_queues:
            widgets.append(
                cloudwatch.GraphWidget(
                    title="Schedule events not delivered",
                    left=[
                        q.metric_approximate_number_of_messages_visible(period=PERIOD, label=f"{name} schedule DLQ")
                        for name, q in schedule_dead_letter_queues.items()
                    ],
                    width=8,
                )
            )
        self.dashboard.add_widgets(*widgets)

    def _alarm(
        self,
        name: str,
        metric: cloudwatch.IMetric,
        *,
        threshold: float,
        description: str,
        periods: int = 1,
    ) -> cloudwatch.Alarm:
        alarm = cloudwatch.Alarm(
            self,
            "".join(part.title() for part in name.split("-")) + "Alarm",
            alarm_name=f"{self.config.prefix}-{name}",
            alarm_description=description,
            metric=metric,
            threshold=threshold,
            evaluation_periods=periods,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            # No data means no traffic (dev is idle most of the time), which is not a failure.
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        alarm.add_alarm_action(cw_actions.SnsAction(self.topic))
        if self.external_topic is not None:
            alarm.add_alarm_action(cw_actions.SnsAction(self.external_topic))
        self.alarms.append(alarm)
        return alarm

    def _dashboard(
        self,
        functions: dict[str, lambda_.Function],
        queues: WorkQueues,
        http_api: apigwv2.HttpApi,
        cluster: rds.DatabaseCluster,
        latency: cloudwatch.IMetric,
        server_errors: cloudwatch.IMetric,
        capacity: cloudwatch.IMetric,
    ) -> cloudwatch.Dashboard:
        dashboard = cloudwatch.Dashboard(self, "Dashboard", dashboard_name=self.config.prefix)
        fns = list(functions.items())
        dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="API requests and errors",
                left=[http_api.metric_count(period=PERIOD)],
                right=[http_api.metric_client_error(period=PERIOD), server_errors],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="API latency (ms)",
                left=[
                    http_api.metric_latency(period=PERIOD, statistic="p50"),
                    latency,
                    http_api.metric_latency(period=PERIOD, statistic="p99"),
                    http_api.metric_integration_latency(period=PERIOD, statistic="p95"),
                ],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="Aurora",
                left=[capacity],
                right=[cluster.metric_database_connections(period=PERIOD)],
                width=8,
            ),
        )
        dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Function invocations",
                left=[f.metric_invocations(period=PERIOD, label=n) for n, f in fns],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="Function errors and throttles",
                left=[f.metric_errors(period=PERIOD, label=f"{n} errors") for n, f in fns],
                right=[f.metric_throttles(period=PERIOD, label=f"{n} throttles") for n, f in fns],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="Function duration p95 (ms)",
                left=[f.metric_duration(period=PERIOD, statistic="p95", label=n) for n, f in fns],
                width=8,
            ),
        )
        queue_widgets: list[cloudwatch.IWidget] = []
        for work in queues.queues.values():
            queue_widgets.append(
                cloudwatch.GraphWidget(
                    title=f"{work.key} queue",
                    left=[
                        work.queue.metric_approximate_number_of_messages_visible(period=PERIOD, label="waiting"),
                        work.dead_letter_queue.metric_approximate_number_of_messages_visible(
                            period=PERIOD, label="dead letters"
                        ),
                    ],
                    right=[work.queue.metric_approximate_age_of_oldest_message(period=PERIOD, label="oldest (s)")],
                    width=8,
                )
            )
        queue_widgets.append(cloudwatch.AlarmStatusWidget(title="Alarms", alarms=self.alarms, width=8, height=6))
        dashboard.add_widgets(*queue_widgets)
        return dashboard
