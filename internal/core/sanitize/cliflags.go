package sanitize

import "strings"

// The command-line rules: a secret passed as a flag's value or a
// login command's argument, and Azure DevOps tokens on a line that
// names it.

// cliExamples are the command lines the cli-password rule must redact.
var cliExamples = []Example{
	{"docker login -p Zx9vQ2mW7pL4 registry.example.com", "docker login -p [REDACTED:cli-password] registry.example.com"},
	{"sshpass -p 'n0t-a-real-pw' ssh deploy@host", "sshpass -p '[REDACTED:cli-password]' ssh deploy@host"},
	{"psql --password=Tr0ub4dor3 -h db", "psql --password=[REDACTED:cli-password] -h db"},
	{"vault login --token s9Kd83hfQ2", "vault login --token [REDACTED:cli-password]"},
	{"mysql -u root -pS3cretPw1 app", "mysql -u root -p[REDACTED:cli-password] app"},
	{"curl -u admin:S3cr3t!x https://x.example.com", "curl -u admin:[REDACTED:cli-password] https://x.example.com"},
}

// loginCommands take a password after -p.
var loginCommands = []string{"sshpass", "docker login", "podman login", "buildah login", "skopeo login",
	"nerdctl login", "oras login", "helm registry login", "helm repo add"}

// flagSuffixes end the long options whose value is a secret.
var flagSuffixes = []string{"password", "passwd", "pass", "token", "secret", "api-key", "apikey", "access-key",
	"secret-key", "private-key", "auth-key"}

// findCLISecrets finds the secrets given on a command line.
func findCLISecrets(line string) [][]int {
	lower := asciiLower(line)
	var out [][]int
	out = append(out, longFlagSecrets(line, lower)...)
	login := containsAny(lower, loginCommands)
	mysql := strings.Contains(lower, "mysql")
	curl := strings.Contains(lower, "curl") || strings.Contains(lower, "wget")
	for i := 0; i+2 < len(line); i++ {
		if line[i] != '-' || i > 0 && line[i-1] != ' ' && line[i-1] != '\t' {
			continue
		}
		switch {
		case line[i+1] == 'p' && login && (line[i+2] == ' ' || line[i+2] == '='):
			out = appendValue(out, line, skipBlank(line, i+3))
		case line[i+1] == 'p' && mysql && line[i+2] != ' ' && line[i+2] != '-':
			out = appendValue(out, line, i+2)
		case line[i+1] == 'u' && curl && (line[i+2] == ' ' || line[i+2] == '='):
			out = appendUserPassword(out, line, skipBlank(line, i+3))
		}
	}
	return sortSpans(out)
}

func longFlagSecrets(line, lower string) [][]int {
	var out [][]int
	for i := 0; ; {
		j := strings.Index(lower[i:], "--")
		if j < 0 {
			return out
		}
		i += j + 2
		if i-3 >= 0 && line[i-3] != ' ' && line[i-3] != '\t' && line[i-3] != '"' && line[i-3] != '\'' {
			continue
		}
		k := i
		for k < len(lower) && (lower[k] >= 'a' && lower[k] <= 'z' || lower[k] >= '0' && lower[k] <= '9' || lower[k] == '-') {
			k++
		}
		name := lower[i:k]
		if k >= len(line) || (line[k] != '=' && line[k] != ' ') || !hasSuffixAny(name, flagSuffixes) {
			continue
		}
		if name == "user" {
			continue
		}
		out = appendValue(out, line, skipBlank(line, k+1))
	}
}

func hasSuffixAny(s string, sufs []string) bool {
	for _, x := range sufs {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

// appendValue adds the span of the argument at j, unless it is another
// option, a reference or a mark.
func appendValue(out [][]int, line string, j int) [][]int {
	if j >= len(line) || line[j] == '-' {
		return out
	}
	v, e, _ := value(line, j)
	if v < 0 || e <= v || codeShaped(line[v:e]) || !plausibleSecret(line[v:e]) && !strings.ContainsAny(line[v:e], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return out
	}
	return append(out, []int{v, e})
}

// appendUserPassword adds the password of the user:password at j.
func appendUserPassword(out [][]int, line string, j int) [][]int {
	v, e, _ := value(line, j)
	if v < 0 {
		return out
	}
	c := strings.IndexByte(line[v:e], ':')
	if c <= 0 || v+c+1 >= e || line[v+c+1] == '[' || codeShaped(line[v+c+1:e]) {
		return out
	}
	return append(out, []int{v + c + 1, e})
}

// sortSpans orders spans and drops any that overlap an earlier one.
func sortSpans(spans [][]int) [][]int {
	for i := 1; i < len(spans); i++ {
		for k := i; k > 0 && spans[k][0] < spans[k-1][0]; k-- {
			spans[k], spans[k-1] = spans[k-1], spans[k]
		}
	}
	out := spans[:0]
	end := -1
	for _, s := range spans {
		if s[0] >= end {
			out = append(out, s)
			end = s[1]
		}
	}
	return out
}

// findDevOpsTokens finds, on a line that names Azure DevOps, the runs of
// exactly 52 lower-case base32 characters with a digit (its personal
// access tokens).
func findDevOpsTokens(line string) [][]int {
	var out [][]int
	for i := 0; i < len(line); {
		if !isBase32(line[i]) {
			i++
			continue
		}
		j := i
		digit := false
		for j < len(line) && isBase32(line[j]) {
			digit = digit || line[j] >= '2' && line[j] <= '7'
			j++
		}
		if j-i == 52 && digit && (i == 0 || !isKeyChar(line[i-1])) && (j == len(line) || !isKeyChar(line[j])) {
			out = append(out, []int{i, j})
		}
		i = j
	}
	return out
}

func isBase32(c byte) bool { return c >= 'a' && c <= 'z' || c >= '2' && c <= '7' }
