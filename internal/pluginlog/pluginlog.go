// Package pluginlog decides the plugin SDK's log levels before the provider starts serving.
//
// terraform-plugin-go and the framework log at TRACE unless told otherwise: every gRPC call and
// every attribute the framework walks is formatted as a JSON line on stderr, which Terraform
// reads and then discards when logging is off. For a plan of a hundred node pools that is about a
// quarter of the provider's CPU and a good part of Terraform's. When Terraform was started
// without any TF_LOG variable, nobody can see those lines, so Quiet turns the SDK loggers off.
// Any TF_LOG variable (TF_LOG, TF_LOG_PROVIDER, TF_LOG_PROVIDER_KARPENTER, TF_LOG_SDK...) leaves
// everything as the SDK defaults it, so debugging works exactly as documented by Terraform.
package pluginlog

import "strings"

// sdkVariables are the levels Quiet sets: the SDK root logger, its protocol and framework
// subsystems, and the provider's own logger.
var sdkVariables = []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER"}

// Quiet returns the variables to set (name -> level) given the process environment
// ("NAME=value" entries): all SDK loggers OFF when no TF_LOG* variable has a value, nothing
// otherwise.
func Quiet(environ []string) map[string]string {
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TF_LOG") && name != "TF_LOG_PATH" && value != "" {
			return nil
		}
	}
	out := make(map[string]string, len(sdkVariables))
	for _, v := range sdkVariables {
		out[v] = "OFF"
	}
	return out
}
