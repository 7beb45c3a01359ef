module github.com/nodeplane/terraform-provider-karpenter/internal/vpccnioracle

go 1.26.8

require (
	github.com/aws/aws-sdk-go-v2/service/ec2 v1.347.0
	github.com/nodeplane/terraform-provider-karpenter v0.0.0
)

require (
	k8s.io/apimachinery v0.37.0 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
	k8s.io/utils v0.0.0-20260626114624-be93311217bd // indirect
)

require (
	github.com/aws/amazon-vpc-cni-k8s v1.23.2
	github.com/aws/smithy-go v1.28.9 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/zapr v1.3.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.uber.org/zap v1.28.0 // indirect
	gopkg.in/natefinch/lumberjack.v2 v2.2.1 // indirect
)

replace github.com/nodeplane/terraform-provider-karpenter => ../..
