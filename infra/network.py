"""The VPC: isolated subnets and VPC endpoints instead of a NAT gateway.

Every Lambda runs in the VPC because it talks to Aurora. What they call besides the database
is reachable through endpoints: S3 (gateway endpoint, free), Secrets Manager, SQS and Bedrock
Runtime (interface endpoints). With no NAT and no internet gateway there is no route out, so
the Lambda security group may allow 443 to anywhere: only the endpoints answer.
"""

from __future__ import annotations

from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_s3 as s3
from constructs import Construct

from infra.config import EnvConfig


class Network(Construct):
    def __init__(self, scope: Construct, id: str, *, config: EnvConfig, flow_log_bucket: s3.IBucket) -> None:
        super().__init__(scope, id)
        egress = config.nat_gateways > 0
        subnets = [ec2.SubnetConfiguration(name="isolated", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)]
        if egress:
            # Only when something must reach the internet (the anthropic LLM provider).
            subnets = [
                ec2.SubnetConfiguration(name="public", subnet_type=ec2.SubnetType.PUBLIC, cidr_mask=24),
                ec2.SubnetConfiguration(name="private", subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS),
            ]
        self.vpc = ec2.Vpc(
            self,
            "Vpc",
            vpc_name=config.prefix,
            ip_addresses=ec2.IpAddresses.cidr(config.vpc_cidr),
            max_azs=config.max_azs,
            nat_gateways=config.nat_gateways,
            subnet_configuration=subnets,
        )
        self.app_subnets = ec2.SubnetSelection(
            subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS if egress else ec2.SubnetType.PRIVATE_ISOLATED
        )
        self.vpc.add_flow_log(
            "FlowLog",
            destination=ec2.FlowLogDestination.to_s3(flow_log_bucket, "vpc-flow-logs/"),
            traffic_type=ec2.FlowLogTrafficType.REJECT,
        )

        self.lambda_security_group = ec2.SecurityGroup(
            self,
            "LambdaSecurityGroup",
            vpc=self.vpc,
            description=f"{config.prefix} Lambda functions",
            allow_all_outbound=False,
        )
        # HTTPS to the VPC endpoints (and nothing else is routable without NAT); the
        # database rule is added by the database construct, to its own security group.
        self.lambda_security_group.add_egress_rule(
            ec2.Peer.any_ipv4(), ec2.Port.tcp(443), "HTTPS to VPC endpoints (S3, Secrets Manager, SQS, Bedrock)"
        )

        self.vpc.add_gateway_endpoint("S3Endpoint", service=ec2.GatewayVpcEndpointAwsService.S3)
        endpoint_subnets = self.vpc.select_subnets(subnet_type=self.app_subnets.subnet_type).subnets[
            : config.endpoint_azs
        ]
        self.interface_endpoints: dict[str, ec2.InterfaceVpcEndpoint] = {}
        services = [
            ("SecretsManager", ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER),
            ("Sqs", ec2.InterfaceVpcEndpointAwsService.SQS),
            ("BedrockRuntime", ec2.InterfaceVpcEndpointAwsService.BEDROCK_RUNTIME),
        ]
        if config.rerank_model:  # Rerank is served by the agent runtime: an endpoint only where it is used
            services.append(("BedrockAgentRuntime", ec2.InterfaceVpcEndpointAwsService.BEDROCK_AGENT_RUNTIME))
        for name, service in services:
            endpoint = self.vpc.add_interface_endpoint(
                f"{name}Endpoint",
                service=service,
                subnets=ec2.SubnetSelection(subnets=endpoint_subnets),
                private_dns_enabled=True,
                open=False,  # only the security groups allowed with allow_endpoints_from()
            )
            endpoint.connections.allow_default_port_from(self.lambda_security_group, "Lambda functions")
            self.interface_endpoints[name] = endpoint

    def allow_endpoints_from(self, peer: ec2.IConnectable, description: str) -> None:
        """Let another security group (the secret rotation function) use the interface endpoints."""
        for endpoint in self.interface_endpoints.values():
            endpoint.connections.allow_default_port_from(peer, description)
