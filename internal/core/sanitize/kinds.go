package sanitize

// gitleaksKinds are examples of the kinds issue 26 found kept, each now
// redacted by a gitleaks rule (the row's id): Kinds adds them to our own
// table so the egress tests plant them too.
var gitleaksKinds = []Kind{
	{ID: "pypi-upload-token", Gitleaks: "pypi-upload-token", Examples: []Example{{"TWINE_PASSWORD pypi-AgEIcHlwaS5vcmcCJGQ3ZmU4ZjA2LTI5ZDMtNDM3Ni1hMjNkLWM1YzEyNjg4MmRlYQACKlszLCJmYjQ1", "TWINE_PASSWORD [REDACTED:pypi-upload-token]"}}},
	{ID: "huggingface-access-token", Gitleaks: "huggingface-access-token", Examples: []Example{{"HF token 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", "HF token [REDACTED:huggingface-access-token]"}}},
	{ID: "databricks-api-token", Gitleaks: "databricks-api-token", Examples: []Example{{"host=adb-1.azuredatabricks.net token dapi4f7a9c2e1b8d3f6a0c5e9b2d7f1a4c8e", "host=adb-1.azuredatabricks.net token [REDACTED:databricks-api-token]"}}},
	{ID: "digitalocean-pat", Gitleaks: "digitalocean-pat", Examples: []Example{{"doctl auth init -t dop_v1_4f7a9c2e1b8d3f6a0c5e9b2d7f1a4c8e3b6d9f2a5c8e1b4d7f0a3c6e9b2d5f8a", "doctl auth init -t [REDACTED:digitalocean-pat]"}}},
	{ID: "mailgun-private-api-token", Gitleaks: "mailgun-private-api-token", Examples: []Example{{"MAILGUN_API_KEY=key-4f7a9c2e1b8d3f6a0c5e9b2d7f1a4c8e", "MAILGUN_API_KEY=[REDACTED:mailgun-private-api-token]"}}},
	{ID: "vault-service-token", Gitleaks: "vault-service-token", Examples: []Example{{"VAULT_TOKEN hvs.2Smd48qm8Ny3BMHjdgeiIJTXcdAnxMX6f2IugAYc8ATDLecwgRpYf9iR9rw46ZWMX96RSBwHEMyTc9cjKaHh9N80SEcLl0N", "VAULT_TOKEN [REDACTED:vault-service-token]"}}},
	{ID: "grafana-service-account-token", Gitleaks: "grafana-service-account-token", Examples: []Example{{"grafana glsa_q7Lm2Np4Rs6Tu8Vw0Xy3Zb5Cd7Ef9Gh1_4f7a9c2e", "grafana [REDACTED:grafana-service-account-token]"}}},
	{ID: "sentry-user-token", Gitleaks: "sentry-user-token", Examples: []Example{{"SENTRY_AUTH_TOKEN=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", "SENTRY_AUTH_TOKEN=[REDACTED:sentry-user-token]"}}},
	{ID: "age-secret-key", Gitleaks: "age-secret-key", Examples: []Example{{"age key AGE-SECRET-KEY-1QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE", "age key [REDACTED:age-secret-key]"}}},
	{ID: "doppler-api-token", Gitleaks: "doppler-api-token", Examples: []Example{{"DOPPLER_TOKEN=dp.pt.q7Lm2Np4Rs6Tu8Vw0Xy3Zb5Cd7Ef9Gh1Jk3Lm5Np7Qr", "DOPPLER_TOKEN=[REDACTED:doppler-api-token]"}}},
	{ID: "postman-api-token", Gitleaks: "postman-api-token", Examples: []Example{{"postman PMAK-4f7a9c2e1b8d3f6a0c5e9b2d-4f7a9c2e1b8d3f6a0c5e9b2d7f1a4c8e3b", "postman [REDACTED:postman-api-token]"}}},
	{ID: "linear-api-key", Gitleaks: "linear-api-key", Examples: []Example{{"LINEAR_API_KEY lin_api_q7Lm2Np4Rs6Tu8Vw0Xy3Zb5Cd7Ef9Gh1Jk3Lm5Np", "LINEAR_API_KEY [REDACTED:linear-api-key]"}}},
	{ID: "pulumi-api-token", Gitleaks: "pulumi-api-token", Examples: []Example{{"PULUMI_ACCESS_TOKEN pul-4f7a9c2e1b8d3f6a0c5e9b2d7f1a4c8e3b6d9f2a", "PULUMI_ACCESS_TOKEN [REDACTED:pulumi-api-token]"}}},
	{ID: "hashicorp-tf-api-token", Gitleaks: "hashicorp-tf-api-token", Examples: []Example{{"credentials app.terraform.io token q7Lm2Np4Rs6Tu8.atlasv1.q7Lm2Np4Rs6Tu8Vw0Xy3Zb5Cd7Ef9Gh1Jk3Lm5Np7Qr9St1Uv3Wx5Yz7Ab9C0d2E4f6G8", "credentials app.terraform.io token [REDACTED:hashicorp-tf-api-token]"}}},
	{ID: "square-access-token", Gitleaks: "square-access-token", Examples: []Example{{"SQUARE_ACCESS_TOKEN EAAAEq7Lm2Np4Rs6Tu8Vw0Xy3Zb5Cd7Ef9Gh1Jk3Lm5Np7Qr9St1Uv3Wx5Yz7Ab", "SQUARE_ACCESS_TOKEN [REDACTED:square-access-token]"}}},
}
