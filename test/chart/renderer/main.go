// Command helm-render renders a Helm chart the way `helm template` does, for machines without a helm binary.
//
// It implements what a single chart (no subcharts) uses from Helm's engine: .Values (values.yaml deep-merged with
// -f files, a null removing a key), .Release, .Chart, .Capabilities, .Template, .Files.Get; sprig plus Helm's own functions
// (include, tpl, required, fail, toYaml, fromYaml, fromYamlArray, toJson, fromJson, lookup); `_*` files as
// partials; NOTES.txt apart; values validated against values.schema.json with the same library and message
// layout Helm 3 used. Numbers in values are float64 and toYaml goes through JSON, as in Helm.
//
// Build (Debian packages golang-go, golang-github-masterminds-sprig-dev, golang-gopkg-yaml.v3-dev,
// golang-github-xeipuuv-gojsonschema-dev): GO111MODULE=off GOPATH=/usr/share/gocode go build -o helm-render .
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"github.com/xeipuuv/gojsonschema"
	"gopkg.in/yaml.v3"
)

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// apiVersions answers .Capabilities.APIVersions.Has like Helm's VersionSet.
type apiVersions []string

func (v apiVersions) Has(name string) bool {
	for _, x := range v {
		if x == name {
			return true
		}
	}
	return false
}

// defaultAPIVersions is what a plain cluster serves (Helm's offline defaults cover the built-in groups).
var defaultAPIVersions = apiVersions{
	"v1", "apps/v1", "batch/v1", "policy/v1", "rbac.authorization.k8s.io/v1", "coordination.k8s.io/v1",
	"networking.k8s.io/v1", "autoscaling/v2", "storage.k8s.io/v1", "admissionregistration.k8s.io/v1",
}

func main() {
	var valueFiles, extraAPIVersions stringList
	chartDir := flag.String("chart", "", "chart directory (required)")
	releaseName := flag.String("name", "release-name", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	kubeVersion := flag.String("kube-version", "v1.30.0", "Kubernetes version for .Capabilities")
	notes := flag.Bool("notes", false, "print the rendered NOTES.txt instead of the manifests")
	flag.Var(&valueFiles, "f", "values file (repeatable; later files win)")
	flag.Var(&extraAPIVersions, "api-versions", "extra API version for .Capabilities.APIVersions (repeatable)")
	flag.Parse()
	if *chartDir == "" {
		fail(errors.New("--chart is required"))
	}
	out, err := render(*chartDir, *releaseName, *namespace, *kubeVersion, valueFiles, append(append(apiVersions{}, defaultAPIVersions...), extraAPIVersions...), *notes)
	if err != nil {
		fail(err)
	}
	fmt.Print(out)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "Error: %s\n", strings.TrimRight(err.Error(), "\n"))
	os.Exit(1)
}

// readYAMLMap reads a YAML mapping into JSON-typed values (float64 numbers), as Helm's sigs.k8s.io/yaml does.
func readYAMLMap(file string) (map[string]interface{}, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	m, err := yamlToJSONMap(data)
	if err != nil {
		return nil, fmt.Errorf("failed to parse %s: %w", file, err)
	}
	return m, nil
}

func yamlToJSONMap(data []byte) (map[string]interface{}, error) {
	var raw interface{}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	if raw == nil {
		return map[string]interface{}{}, nil
	}
	js, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	out := map[string]interface{}{}
	if err := json.Unmarshal(js, &out); err != nil {
		return nil, errors.New("error unmarshaling JSON: the document is not a mapping")
	}
	return out, nil
}

// coalesce merges src over dst the way Helm merges user values over chart defaults.
func coalesce(dst, src map[string]interface{}) map[string]interface{} {
	for key, value := range src {
		if value == nil {
			delete(dst, key)
			continue
		}
		srcMap, srcIsMap := value.(map[string]interface{})
		dstMap, dstIsMap := dst[key].(map[string]interface{})
		if srcIsMap && dstIsMap {
			dst[key] = coalesce(dstMap, srcMap)
		} else {
			dst[key] = value
		}
	}
	return dst
}

// validateSchema reproduces Helm 3's ValidateAgainstSchema message layout.
func validateSchema(chartName, schemaFile string, values map[string]interface{}) error {
	schema, err := os.ReadFile(schemaFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	result, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewGoLoader(values))
	if err != nil {
		return fmt.Errorf("%s: invalid values.schema.json: %w", chartName, err)
	}
	if result.Valid() {
		return nil
	}
	var sb strings.Builder
	sb.WriteString("values don't meet the specifications of the schema(s) in the following chart(s):\n")
	sb.WriteString(chartName + ":\n")
	for _, desc := range result.Errors() {
		sb.WriteString(fmt.Sprintf("- %s\n", desc))
	}
	return errors.New(sb.String())
}

// chartMetadata exposes Chart.yaml with Helm's field names (.Chart.Name, .Chart.AppVersion, ...).
func chartMetadata(chartDir string) (map[string]interface{}, error) {
	raw, err := readYAMLMap(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return nil, err
	}
	meta := map[string]interface{}{}
	for key, value := range raw {
		meta[strings.ToUpper(key[:1])+key[1:]] = value
	}
	for _, required := range []string{"ApiVersion", "Name", "Version"} {
		if _, ok := meta[required]; !ok {
			return nil, fmt.Errorf("Chart.yaml: %s is required", strings.ToLower(required[:1])+required[1:])
		}
	}
	meta["IsRoot"] = true
	return meta, nil
}

func toYAML(v interface{}) string {
	js, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	var node yaml.Node
	if err := yaml.Unmarshal(js, &node); err != nil {
		return ""
	}
	blockStyle(&node)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&node); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// blockStyle drops the flow style and quoting that parsing JSON leaves, so the encoder writes ordinary YAML.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// chartFiles answers .Files.Get like Helm's Files: a file of the chart by its path, "" when it does not exist.
type chartFiles struct{ dir string }

func (f chartFiles) Get(name string) string {
	data, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(name)))
	if err != nil {
		return ""
	}
	return string(data)
}

func render(chartDir, releaseName, namespace, kubeVersion string, valueFiles []string, versions apiVersions, notesOnly bool) (string, error) {
	chart, err := chartMetadata(chartDir)
	if err != nil {
		return "", err
	}
	chartName := fmt.Sprint(chart["Name"])
	values, err := readYAMLMap(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		return "", err
	}
	for _, file := range valueFiles {
		user, err := readYAMLMap(file)
		if err != nil {
			return "", err
		}
		values = coalesce(values, user)
	}
	if err := validateSchema(chartName, filepath.Join(chartDir, "values.schema.json"), values); err != nil {
		return "", err
	}

	templatesDir := filepath.Join(chartDir, "templates")
	entries, err := os.ReadDir(templatesDir)
	if err != nil {
		return "", err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)

	root := template.New("gotpl")
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	includedNames := map[string]int{}
	funcs["include"] = func(name string, data interface{}) (string, error) {
		if includedNames[name] > 1000 {
			return "", fmt.Errorf("rendering template has a nested reference name: %s", name)
		}
		includedNames[name]++
		defer func() { includedNames[name]-- }()
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, name, data); err != nil {
			return "", err
		}
		return buf.String(), nil
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		t, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err = t.New("tpl").Option("missingkey=zero").Parse(text)
		if err != nil {
			return "", fmt.Errorf("cannot parse template %q: %w", text, err)
		}
		var buf bytes.Buffer
		if err := t.Execute(&buf, data); err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
		}
		return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
	}
	funcs["required"] = func(message string, value interface{}) (interface{}, error) {
		if value == nil {
			return nil, errors.New(message)
		}
		if s, ok := value.(string); ok && s == "" {
			return nil, errors.New(message)
		}
		return value, nil
	}
	funcs["fail"] = func(message string) (string, error) { return "", errors.New(message) }
	funcs["toYaml"] = toYAML
	funcs["toJson"] = func(v interface{}) string {
		js, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		return string(js)
	}
	funcs["fromYaml"] = func(text string) map[string]interface{} {
		m, err := yamlToJSONMap([]byte(text))
		if err != nil {
			return map[string]interface{}{"Error": err.Error()}
		}
		return m
	}
	funcs["fromYamlArray"] = func(text string) []interface{} {
		var raw interface{}
		if err := yaml.Unmarshal([]byte(text), &raw); err != nil {
			return []interface{}{err.Error()}
		}
		js, _ := json.Marshal(raw)
		var out []interface{}
		if err := json.Unmarshal(js, &out); err != nil {
			return []interface{}{err.Error()}
		}
		return out
	}
	funcs["fromJson"] = func(text string) map[string]interface{} {
		out := map[string]interface{}{}
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			out["Error"] = err.Error()
		}
		return out
	}
	// Like `helm template`: no cluster, so lookup finds nothing.
	funcs["lookup"] = func(apiVersion, kind, namespace, name string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	root.Funcs(funcs)

	templateName := func(file string) string { return path.Join(chartName, "templates", file) }
	for _, file := range names {
		data, err := os.ReadFile(filepath.Join(templatesDir, file))
		if err != nil {
			return "", err
		}
		if _, err := root.New(templateName(file)).Option("missingkey=zero").Parse(string(data)); err != nil {
			return "", fmt.Errorf("parse error in %s: %w", templateName(file), err)
		}
	}

	top := map[string]interface{}{
		"Values": values,
		"Release": map[string]interface{}{
			"Name": releaseName, "Namespace": namespace, "Service": "Helm",
			"IsInstall": true, "IsUpgrade": false, "Revision": 1,
		},
		"Chart": chart,
		"Files": chartFiles{dir: chartDir},
		"Capabilities": map[string]interface{}{
			"KubeVersion": map[string]interface{}{
				"Version": kubeVersion, "GitVersion": kubeVersion,
				"Major": strings.Split(strings.TrimPrefix(kubeVersion, "v"), ".")[0],
				"Minor": strings.Split(kubeVersion+".", ".")[1],
			},
			"APIVersions": versions,
			"HelmVersion": map[string]interface{}{"Version": "v3.14.0"},
		},
	}

	var out strings.Builder
	for _, file := range names {
		isNotes := file == "NOTES.txt"
		if strings.HasPrefix(file, "_") || isNotes != notesOnly {
			continue
		}
		if !isNotes && !strings.HasSuffix(file, ".yaml") && !strings.HasSuffix(file, ".yml") && !strings.HasSuffix(file, ".tpl") {
			continue
		}
		name := templateName(file)
		data := map[string]interface{}{}
		for k, v := range top {
			data[k] = v
		}
		data["Template"] = map[string]interface{}{"Name": name, "BasePath": path.Join(chartName, "templates")}
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, name, data); err != nil {
			return "", fmt.Errorf("template: %w", err)
		}
		text := strings.ReplaceAll(buf.String(), "<no value>", "")
		if isNotes {
			out.WriteString(text)
			continue
		}
		for _, doc := range splitDocuments(text) {
			out.WriteString("---\n# Source: " + name + "\n" + doc + "\n")
		}
	}
	return out.String(), nil
}

var separator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// splitDocuments splits a rendered file into its non-empty YAML documents, as Helm's releaseutil does.
func splitDocuments(text string) []string {
	var docs []string
	for _, part := range separator.Split(text, -1) {
		trimmed := strings.TrimSpace(part)
		if trimmed == "" || onlyComments(trimmed) {
			continue
		}
		docs = append(docs, strings.TrimRight(strings.TrimLeft(part, "\n"), " \n\t"))
	}
	return docs
}

func onlyComments(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			return false
		}
	}
	return true
}
