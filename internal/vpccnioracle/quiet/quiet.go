// Package quiet keeps the VPC CNI's logger off the disk in tests that import the CNI's
// pkg/vpc. That package builds its logger while it is initialised, and the logger writes to
// /host/var/log/aws-routed-eni/ipamd.log (creating the folders) unless AWS_VPC_K8S_CNI_LOG_FILE
// says otherwise; it logs at debug level unless AWS_VPC_K8S_CNI_LOGLEVEL says otherwise.
//
// The oracle test imports this package (blank) beside pkg/vpc. Its init sets both variables,
// when unset, to stderr and error before the logger reads them: Go initialises packages in
// import path order among those whose imports are done, this package needs only os, and its path
// sorts before go.uber.org/zap, which the CNI's logger (and so pkg/vpc) waits for.
package quiet

import "os"

func init() {
	for k, v := range map[string]string{"AWS_VPC_K8S_CNI_LOG_FILE": "stderr", "AWS_VPC_K8S_CNI_LOGLEVEL": "error"} {
		if _, set := os.LookupEnv(k); !set {
			_ = os.Setenv(k, v)
		}
	}
}
