"""Queues, dead-letter queues, event source mappings and migrations on deploy."""

from __future__ import annotations

from infra.migrations import migrations_hash
from infra.profiles import profile_for
from infra.workers import MAX_RECEIVES, VISIBILITY_FACTOR


def _queues(synth):
    queues = synth.resources("AWS::SQS::Queue")
    dlq_ids = {
        q["Properties"]["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
        for q in queues.values()
        if "RedrivePolicy" in q["Properties"]
    }
    # A schedule's own dead-letter queue (events the scheduler could not deliver).
    dlq_ids |= {
        s["Properties"]["Target"]["DeadLetterConfig"]["Arn"]["Fn::GetAtt"][0]
        for s in synth.resources("AWS::Scheduler::Schedule").values()
    }
    # Lambda's on-failure destinations (asynchronous invocations that failed after their retries).
    dlq_ids |= {
        c["Properties"]["DestinationConfig"]["OnFailure"]["Destination"]["Fn::GetAtt"][0]
        for c in synth.resources("AWS::Lambda::EventInvokeConfig").values()
    }
    return queues, dlq_ids


def test_every_queue_has_a_dlq(dev, future):
    for synth in (dev, future):
        queues, dlq_ids = _queues(synth)
        work = {k: q for k, q in queues.items() if k not in dlq_ids}
        assert work, "no job queues"
        for logical_id, queue in work.items():
            policy = queue["Properties"].get("RedrivePolicy")
            assert policy, f"{logical_id} has no dead-letter queue"
            assert policy["maxReceiveCount"] == MAX_RECEIVES
        for dlq in dlq_ids:
            assert queues[dlq]["Properties"]["MessageRetentionPeriod"] == 14 * 24 * 3600
        for queue in queues.values():
            assert queue["Properties"]["SqsManagedSseEnabled"] is True


def test_queues_refuse_plain_http(dev):
    queues, _ = _queues(dev)
    policies = dev.resources("AWS::SQS::QueuePolicy").values()
    guarded = set()
    for policy in policies:
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            if statement["Effect"] == "Deny" and statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}:
                guarded |= {q["Ref"] for q in policy["Properties"]["Queues"]}
    assert guarded == set(queues)


def test_visibility_timeout_is_six_times_the_consumer_timeout(dev, future):
    for synth in (dev, future):
        mappings = synth.resources("AWS::Lambda::EventSourceMapping")
        assert mappings
        for mapping in mappings.values():
            props = mapping["Properties"]
            function_id = props["FunctionName"]["Ref"]
            queue_id = props["EventSourceArn"]["Fn::GetAtt"][0]
            timeout = synth.json["Resources"][function_id]["Properties"]["Timeout"]
            visibility = synth.json["Resources"][queue_id]["Properties"]["VisibilityTimeout"]
            assert visibility >= VISIBILITY_FACTOR * timeout
            assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
            assert props["ScalingConfig"]["MaximumConcurrency"] >= 2


def test_embed_worker_consumes_the_embed_queue(dev):
    (mapping,) = [
        m
        for m in dev.resources("AWS::Lambda::EventSourceMapping").values()
        if m["Properties"]["FunctionName"] == {"Ref": dev.function_logical_id("embed_worker")}
    ]
    assert mapping["Properties"]["BatchSize"] == profile_for("embed_worker").batch_size
    queue = dev.json["Resources"][mapping["Properties"]["EventSourceArn"]["Fn::GetAtt"][0]]
    assert queue["Properties"]["QueueName"] == "engram-dev-embed-jobs"


def test_migrations_run_on_every_deploy_before_the_functions(dev):
    ((resource_id, resource),) = dev.resources("Custom::EngramMigrations").items()
    assert resource["Properties"]["MigrationsHash"] == migrations_hash()
    # the provider's framework function invokes the migrate function
    framework = [
        f
        for f in dev.resources("AWS::Lambda::Function").values()
        if f["Properties"].get("Environment", {}).get("Variables", {}).get("USER_ON_EVENT_FUNCTION_ARN")
    ]
    assert len(framework) == 1
    target = framework[0]["Properties"]["Environment"]["Variables"]["USER_ON_EVENT_FUNCTION_ARN"]
    assert target == {"Fn::GetAtt": [dev.function_logical_id("migrate"), "Arn"]}
    assert "DatabaseCluster5B53A178" in str(resource.get("DependsOn", [])) or any(
        d.startswith("DatabaseCluster") for d in resource.get("DependsOn", [])
    )
    for name in dev.stack.function_names:
        depends = dev.json["Resources"][dev.function_logical_id(name)].get("DependsOn", [])
        assert (resource_id in depends) == (name != "migrate"), name


def test_migrations_hash_follows_the_sql(tmp_path):
    (tmp_path / "0001_a.sql").write_text("create table a();")
    first = migrations_hash(tmp_path)
    assert migrations_hash(tmp_path) == first
    (tmp_path / "0002_b.sql").write_text("create table b();")
    assert migrations_hash(tmp_path) != first
