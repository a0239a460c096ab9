"""Aurora Serverless v2, PostgreSQL 16 with pgvector, credentials in Secrets Manager.

The Lambdas connect with psycopg straight to the cluster from the VPC and keep one connection
per container (see infra/README.md, "Database access"). Where an environment turns on
`db_rds_proxy` (prod), they connect to an RDS Proxy instead, which pools connections across
containers; `ENGRAM_DB_HOST` tells the code which endpoint to use.
"""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_logs as logs
from aws_cdk import aws_rds as rds
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from infra.config import EnvConfig
from infra.nag import acknowledge
from infra.retention import retention_days

DB_NAME = "engram"
DB_USER = "engram_admin"
DB_PORT = 5432
# The login role of each duty (migration 0040) -> the duty's name in ids and secret names.
LOGIN_ROLES = {"engram_api": "api", "engram_worker": "worker"}
EXCLUDED_PASSWORD_CHARACTERS = " %+~`#$&*()|[]{}:;<>?!'/@\"\\"


class Database(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: EnvConfig,
        vpc: ec2.IVpc,
        subnets: ec2.SubnetSelection,
        client_security_group: ec2.SecurityGroup,
    ) -> None:
        super().__init__(scope, id)
        self.name = DB_NAME
        cluster_id = config.prefix
        removal = RemovalPolicy.SNAPSHOT if config.retain_data else RemovalPolicy.DESTROY

        self.security_group = ec2.SecurityGroup(
            self, "SecurityGroup", vpc=vpc, description=f"{config.prefix} Aurora", allow_all_outbound=False
        )

        # RDS writes to a log group named after the cluster. Where logs outlive the stack (retain_data),
        # a CloudFormation-owned group of that name would be left behind by `make destroy` and collide
        # with the next create: the cluster's log retention (a custom resource run after the cluster)
        # creates the group or adopts the one left behind, sets its retention and keeps it on delete.
        # Elsewhere the group is created here, before the cluster, and goes with the stack.
        postgres_logs = (
            None
            if config.retain_data
            else logs.LogGroup(
                self,
                "PostgresLogs",
                log_group_name=f"/aws/rds/cluster/{cluster_id}/postgresql",
                retention=retention_days(config.log_retention_days),
                removal_policy=RemovalPolicy.DESTROY,
            )
        )

        # Scale to zero: the cluster pauses after this long without connections and
        # resumes (in about 15 s) on the next one. Compute then costs nothing.
        auto_pause = Duration.minutes(config.db_auto_pause_minutes) if config.db_min_acu == 0 else None

        parameters = {
            "rds.force_ssl": "1",  # refuse unencrypted connections
            "log_min_duration_statement": "2000",  # slow statements (ms) land in the postgres log
        }
        if config.db_idle_session_timeout_s:
            parameters["idle_session_timeout"] = str(config.db_idle_session_timeout_s * 1000)

        self.cluster = rds.DatabaseCluster(
            self,
            "Cluster",
            cluster_identifier=cluster_id,
            engine=rds.DatabaseClusterEngine.aurora_postgres(
                version=rds.AuroraPostgresEngineVersion.of(
                    config.db_engine_version, config.db_engine_version.split(".")[0]
                )
            ),
            # Never pay for RDS extended support by surprise when 16 reaches end of life.
            engine_lifecycle_support=rds.EngineLifecycleSupport.OPEN_SOURCE_RDS_EXTENDED_SUPPORT_DISABLED,
            # RDS retires old 16.x minors (a new environment then fails to create): take each new minor
            # in the maintenance window. The template's version is what a new cluster starts on.
            auto_minor_version_upgrade=True,
            credentials=rds.Credentials.from_generated_secret(
                DB_USER, secret_name=f"{config.prefix}/db-admin", exclude_characters=EXCLUDED_PASSWORD_CHARACTERS
            ),
            default_database_name=DB_NAME,
            port=DB_PORT,
            parameters=parameters,
            writer=rds.ClusterInstance.serverless_v2(
                "writer",
                publicly_accessible=False,
                auto_minor_version_upgrade=True,
                enable_performance_insights=config.db_performance_insights or None,
            ),
            readers=[
                # A reader in another AZ is the failover target; it scales with the writer.
                rds.ClusterInstance.serverless_v2(
                    f"reader{i + 1}",
                    publicly_accessible=False,
                    auto_minor_version_upgrade=True,
                    scale_with_writer=True,
                    enable_performance_insights=config.db_performance_insights or None,
                )
                for i in range(config.db_readers)
            ],
            serverless_v2_min_capacity=config.db_min_acu,
            serverless_v2_max_capacity=config.db_max_acu,
            serverless_v2_auto_pause_duration=auto_pause,
            vpc=vpc,
            vpc_subnets=subnets,
            security_groups=[self.security_group],
            storage_encrypted=True,
            iam_authentication=True,
            deletion_protection=config.db_deletion_protection,
            backup=rds.BackupProps(retention=Duration.days(config.db_backup_days), preferred_window="03:00-04:00"),
            preferred_maintenance_window="Sun:04:30-Sun:05:30",
            cloudwatch_logs_exports=["postgresql"],
            cloudwatch_logs_retention=retention_days(config.log_retention_days) if config.retain_data else None,
            removal_policy=removal,
            copy_tags_to_snapshot=True,
        )
        if postgres_logs is not None:
            self.cluster.node.add_dependency(postgres_logs)
        assert self.cluster.secret is not None
        self.secret: secretsmanager.ISecret = self.cluster.secret

        # Single-user rotation through the AWS-published rotation function, inside the VPC.
        # Its own security group: the rotation function reaches the cluster and the Secrets
        # Manager endpoint, nothing else.
        self.rotation_security_group = ec2.SecurityGroup(
            self,
            "RotationSecurityGroup",
            vpc=vpc,
            description=f"{config.prefix} secret rotation",
            allow_all_outbound=False,
        )
        self.rotation_security_group.add_egress_rule(ec2.Peer.any_ipv4(), ec2.Port.tcp(443), "VPC endpoints")
        self.rotation = self.cluster.add_rotation_single_user(
            automatically_after=Duration.days(config.db_rotation_days),
            vpc_subnets=subnets,
            security_group=self.rotation_security_group,
        )

        # A login role per duty (migration 0040), each with its own secret: a function reads only its
        # duty's, and only migrate (and the master's rotation) holds the master secret. Each role rotates
        # its own password (single-user rotation); the migrate function gives a role its secret's
        # password when the secret cannot log in yet (engram.schema.logins).
        self.login_secrets: dict[str, secretsmanager.ISecret] = {}
        for role, duty in LOGIN_ROLES.items():
            generated = rds.DatabaseSecret(
                self,
                f"{duty.title()}LoginSecret",
                username=role,
                secret_name=f"{config.prefix}/db-{duty}",
                exclude_characters=EXCLUDED_PASSWORD_CHARACTERS,
            )
            secret = generated.attach(self.cluster)  # adds the host, port, engine and database name
            secretsmanager.SecretRotation(
                self,
                f"{duty.title()}LoginRotation",
                application=secretsmanager.SecretRotationApplication.POSTGRES_ROTATION_SINGLE_USER,
                secret=secret,
                target=self.cluster,
                vpc=vpc,
                vpc_subnets=subnets,
                security_group=self.rotation_security_group,
                automatically_after=Duration.days(config.db_rotation_days),
            )
            self.login_secrets[duty] = secret

        cfn_cluster = self.cluster.node.default_child
        assert cfn_cluster is not None
        acknowledge(
            cfn_cluster,
            "AwsSolutions-RDS11",
            "The PostgreSQL default port is kept: the cluster is only reachable from the Lambda and "
            "proxy security groups in isolated subnets, and a non-default port adds no protection.",
        )
        if not config.db_deletion_protection:
            acknowledge(
                cfn_cluster,
                "AwsSolutions-RDS10",
                f"{config.env} must be removable with `make destroy ENV={config.env}`"
                + ("; a final snapshot is still taken" if config.retain_data else "")
                + ". prod turns db_deletion_protection on in cdk.json.",
            )

        self.proxy: rds.DatabaseProxy | None = None
        if config.db_rds_proxy:
            proxy_security_group = ec2.SecurityGroup(
                self,
                "ProxySecurityGroup",
                vpc=vpc,
                description=f"{config.prefix} RDS Proxy",
                allow_all_outbound=False,
            )
            self.proxy = self.cluster.add_proxy(
                "Proxy",
                db_proxy_name=config.prefix,
                secrets=[self.secret, *self.login_secrets.values()],
                vpc=vpc,
                vpc_subnets=subnets,
                security_groups=[proxy_security_group],
                require_tls=True,
                # Lambda containers idle for long stretches; release their server connections sooner.
                idle_client_timeout=Duration.minutes(15),
            )
            self.security_group.add_ingress_rule(proxy_security_group, ec2.Port.tcp(DB_PORT), "RDS Proxy")
            proxy_security_group.add_egress_rule(self.security_group, ec2.Port.tcp(DB_PORT), "to Aurora")
            proxy_security_group.add_ingress_rule(client_security_group, ec2.Port.tcp(DB_PORT), "Lambdas")
            client_security_group.add_egress_rule(proxy_security_group, ec2.Port.tcp(DB_PORT), "RDS Proxy")
            self.endpoint = self.proxy.endpoint
        else:
            self.security_group.add_ingress_rule(client_security_group, ec2.Port.tcp(DB_PORT), "Lambdas")
            client_security_group.add_egress_rule(self.security_group, ec2.Port.tcp(DB_PORT), "Aurora")
            self.endpoint = self.cluster.cluster_endpoint.hostname
        # Reads that tolerate lag go to the reader endpoint where there is a reader. Behind a proxy they
        # stay on the proxy: the Lambdas' security group reaches only the proxy.
        self.reader_endpoint: str | None = (
            self.cluster.cluster_read_endpoint.hostname if config.db_readers > 0 and not config.db_rds_proxy else None
        )
