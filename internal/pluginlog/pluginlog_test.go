package pluginlog

import (
	"maps"
	"testing"
)

func TestQuiet(t *testing.T) {
	off := map[string]string{"TF_LOG_SDK": "OFF", "TF_LOG_SDK_PROTO": "OFF", "TF_LOG_SDK_FRAMEWORK": "OFF", "TF_LOG_PROVIDER": "OFF"}
	for _, tc := range []struct {
		name    string
		environ []string
		want    map[string]string
	}{
		{"no logging", []string{"PATH=/bin", "HOME=/root"}, off},
		{"empty TF_LOG counts as unset", []string{"TF_LOG="}, off},
		{"TF_LOG_PATH alone does not log", []string{"TF_LOG_PATH=/tmp/tf.log"}, off},
		{"a look-alike name is not a log variable", []string{"XTF_LOG=TRACE"}, off},
		{"TF_LOG", []string{"TF_LOG=DEBUG"}, nil},
		{"provider only", []string{"TF_LOG_PROVIDER=DEBUG"}, nil},
		{"this provider only", []string{"TF_LOG_PROVIDER_KARPENTER=TRACE"}, nil},
		{"SDK subsystem", []string{"TF_LOG_SDK_FRAMEWORK=TRACE"}, nil},
		{"core only still counts: the user is debugging", []string{"TF_LOG_CORE=TRACE"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Quiet(tc.environ); !maps.Equal(got, tc.want) {
				t.Errorf("Quiet(%q) = %v, want %v", tc.environ, got, tc.want)
			}
		})
	}
}
