package iampolicy

// Small copies of the AWS managed policies a node role usually carries, written for the tests in
// the shape IAM returns them (GetPolicyVersion's document, once URL-decoded).

// AmazonEKS_CNI_Policy: ec2:CreateTags only on network interfaces.
const fixtureCNIPolicy = `{
    "Version": "2012-10-17",
    "Statement": [
        {
            "Sid": "AmazonEKSCNIPolicy",
            "Effect": "Allow",
            "Action": [
                "ec2:AssignPrivateIpAddresses",
                "ec2:AttachNetworkInterface",
                "ec2:CreateNetworkInterface",
                "ec2:DeleteNetworkInterface",
                "ec2:DescribeInstances",
                "ec2:DescribeTags",
                "ec2:DescribeNetworkInterfaces",
                "ec2:DescribeInstanceTypes",
                "ec2:DescribeSubnets",
                "ec2:DetachNetworkInterface",
                "ec2:ModifyNetworkInterfaceAttribute",
                "ec2:UnassignPrivateIpAddresses"
            ],
            "Resource": "*"
        },
        {
            "Sid": "AmazonEKSCNIPolicyENITag",
            "Effect": "Allow",
            "Action": [
                "ec2:CreateTags"
            ],
            "Resource": [
                "arn:aws:ec2:*:*:network-interface/*"
            ]
        }
    ]
}`

// AmazonEKSWorkerNodePolicy.
const fixtureWorkerNodePolicy = `{
    "Version": "2012-10-17",
    "Statement": [
        {
            "Sid": "WorkerNodePermissions",
            "Effect": "Allow",
            "Action": [
                "ec2:DescribeInstances",
                "ec2:DescribeInstanceTypes",
                "ec2:DescribeRouteTables",
                "ec2:DescribeSecurityGroups",
                "ec2:DescribeSubnets",
                "ec2:DescribeVolumes",
                "ec2:DescribeVolumesModifications",
                "ec2:DescribeVpcs",
                "eks:DescribeCluster",
                "eks-auth:AssumeRoleForPodIdentity"
            ],
            "Resource": "*"
        }
    ]
}`

// AmazonEC2ContainerRegistryReadOnly: one statement as an object, not an array.
const fixtureECRReadOnly = `{
    "Version": "2012-10-17",
    "Statement": {
        "Effect": "Allow",
        "Action": [
            "ecr:GetAuthorizationToken",
            "ecr:BatchCheckLayerAvailability",
            "ecr:GetDownloadUrlForLayer",
            "ecr:GetRepositoryPolicy",
            "ecr:DescribeRepositories",
            "ecr:ListImages",
            "ecr:DescribeImages",
            "ecr:BatchGetImage",
            "ecr:GetLifecyclePolicy",
            "ecr:GetLifecyclePolicyPreview",
            "ecr:ListTagsForResource",
            "ecr:DescribeImageScanFindings"
        ],
        "Resource": "*"
    }
}`

// AmazonEC2ContainerRegistryPullOnly.
const fixtureECRPullOnly = `{
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Action": [
                "ecr:GetAuthorizationToken",
                "ecr:BatchCheckLayerAvailability",
                "ecr:GetDownloadUrlForLayer",
                "ecr:BatchGetImage"
            ],
            "Resource": "*"
        }
    ]
}`

const (
	arnCNI        = "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"
	arnWorker     = "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy"
	arnECRRead    = "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly"
	arnECRPull    = "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly"
	arnSSMCore    = "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"
	fixtureSSMish = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["ssm:UpdateInstanceInformation","ssmmessages:*","ec2messages:*"],"Resource":"*"}]}`
)

// managedDocs are the three managed policies a node role usually carries.
func managedDocs() []Document {
	return []Document{
		{Source: arnWorker, JSON: fixtureWorkerNodePolicy},
		{Source: arnCNI, JSON: fixtureCNIPolicy},
		{Source: arnECRRead, JSON: fixtureECRReadOnly},
	}
}
