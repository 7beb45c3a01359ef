variable "partition" {
  type        = string
  description = "AWS partition: aws, aws-cn or aws-us-gov (data.aws_partition.current.partition)."
  validation {
    condition     = contains(["aws", "aws-cn", "aws-us-gov", "aws-iso", "aws-iso-b", "aws-iso-e", "aws-iso-f", "aws-eusc"], var.partition)
    error_message = "partition must be an AWS partition name, e.g. aws, aws-cn or aws-us-gov."
  }
}

variable "account_id" {
  type        = string
  description = "The account the provider works in (12 digits)."
  validation {
    condition     = can(regex("^[0-9]{12}$", var.account_id))
    error_message = "account_id must be 12 digits."
  }
}

variable "region" {
  type        = string
  description = "The provider's region."
}

variable "cluster_name" {
  type        = string
  description = "The provider's cluster_name: the static pools' launch templates and instances, and the classes' instance profiles, carry it as a tag."
}

variable "owner_ids" {
  type        = list(string)
  default     = ["*"]
  description = "Owner ids (patterns) the policy lets the provider create, change and delete objects for. Each class and pool draws its own owner_id at its first plan or apply, so the default is any owner id of the cluster's objects tagged by the provider; the owner_id values of a state pin the policy to that state's objects (new pools then need the policy widened)."
  validation {
    condition     = length(var.owner_ids) > 0 && alltrue([for o in var.owner_ids : can(regex("^[0-9a-f*?]+$", o))])
    error_message = "owner_ids must hold at least one owner id: hex digits, or a pattern with * and ?."
  }
}

variable "node_role_arns" {
  type        = list(string)
  default     = []
  description = "The node roles the classes pass to EC2: each class's role, or the role in its instance_profile. Without any, the instance-profiles policy has no iam:PassRole."
  validation {
    condition     = alltrue([for a in var.node_role_arns : can(regex("^arn:[a-z-]+:iam::[0-9]{12}:role/[\\w+=,.@/-]+$", a))])
    error_message = "node_role_arns must be IAM role ARNs."
  }
}

variable "ssm_parameter_arns" {
  type        = list(string)
  default     = []
  description = "The parameters the classes' ssm_parameter AMI terms name (ARNs); AWS's public AMI parameters are always included."
  validation {
    condition     = alltrue([for a in var.ssm_parameter_arns : can(regex("^arn:[a-z-]+:ssm:[a-z0-9-]*:[0-9]*:parameter/[^\"\\\\]+$", a))])
    error_message = "ssm_parameter_arns must be SSM parameter ARNs."
  }
}

variable "capabilities" {
  type        = list(string)
  default     = null
  description = "The capabilities whose policies to fill (the JSON files' names); null: every one."
}
