// Writes the protobuf schema the fake cluster decodes request bodies with (packages/fake-cluster/src/generated/protobuf-schema.ts):
// for each API type a client may send as application/vnd.kubernetes.protobuf (client-go's typed clients send built-in
// kinds so, kubectl's `create` among them), every field's protobuf number, its JSON name, whether its JSON is
// omitted when empty, whether it is a pointer, and what it holds. Read from the Go types' own struct tags, so it is
// the API server's view of the wire.
//
//	cd test/cluster/tools && go run ./protobuf-schema > ../../../packages/fake-cluster/src/generated/protobuf-schema.ts
//
// With -fixtures it writes, instead, objects encoded by the API machinery's own protobuf serializer beside their JSON
// (packages/fake-cluster/test/fixtures/protobuf-bodies.json), which the decoder's test holds it to.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The kinds a body may hold, by apiVersion and kind.
var kinds = map[string]any{
	"v1/Pod":                       corev1.Pod{},
	"v1/ConfigMap":                 corev1.ConfigMap{},
	"v1/Namespace":                 corev1.Namespace{},
	"v1/Node":                      corev1.Node{},
	"v1/Event":                     corev1.Event{},
	"apps/v1/Deployment":           appsv1.Deployment{},
	"apps/v1/ReplicaSet":           appsv1.ReplicaSet{},
	"apps/v1/StatefulSet":          appsv1.StatefulSet{},
	"apps/v1/DaemonSet":            appsv1.DaemonSet{},
	"batch/v1/Job":                 batchv1.Job{},
	"batch/v1/CronJob":             batchv1.CronJob{},
	"coordination.k8s.io/v1/Lease": coordinationv1.Lease{},
	"events.k8s.io/v1/Event":       eventsv1.Event{},
	"autoscaling/v1/Scale":         autoscalingv1.Scale{},
	"meta.k8s.io/v1/DeleteOptions": metav1.DeleteOptions{},
	"v1/DeleteOptions":             metav1.DeleteOptions{},
	"policy/v1/Eviction":           policyv1.Eviction{},
	"authorization.k8s.io/v1/SelfSubjectAccessReview": authorizationv1.SelfSubjectAccessReview{},
	"authentication.k8s.io/v1/SelfSubjectReview":      authenticationv1.SelfSubjectReview{},
}

// Types with their own wire and JSON forms.
var special = map[reflect.Type]string{
	reflect.TypeOf(metav1.Time{}):          "time",
	reflect.TypeOf(metav1.MicroTime{}):     "microtime",
	reflect.TypeOf(metav1.Duration{}):      "duration",
	reflect.TypeOf(metav1.FieldsV1{}):      "rawjson",
	reflect.TypeOf(runtime.RawExtension{}): "rawjson",
	reflect.TypeOf(resource.Quantity{}):    "quantity",
	reflect.TypeOf(intstr.IntOrString{}):   "intorstring",
}

// Field: [number, json name, flags ("o" omitempty, "p" pointer, "l" list, "m" map), value, map value].
// A value is "string", "int", "uint", "bool", "bytes", "float", a special's name, or a message's type name.
type field = []any

var schema = map[string][]field{}

func typeName(t reflect.Type) string {
	return strings.TrimPrefix(t.PkgPath(), "k8s.io/") + "." + t.Name()
}

func valueOf(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if name, ok := special[t]; ok {
		return name
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "int"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "uint"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Struct:
		walk(t)
		return typeName(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes"
		}
	}
	panic(fmt.Sprintf("unhandled type %v", t))
}

func walk(t reflect.Type) {
	name := typeName(t)
	if _, done := schema[name]; done {
		return
	}
	schema[name] = nil
	fields := []field{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("protobuf")
		if tag == "" {
			continue
		}
		parts := strings.Split(tag, ",")
		number, err := strconv.Atoi(parts[1])
		if err != nil {
			panic(err)
		}
		jsonTag := strings.Split(f.Tag.Get("json"), ",")
		jsonName := jsonTag[0]
		flags := ""
		for _, option := range jsonTag[1:] {
			if option == "omitempty" {
				flags += "o"
			}
		}
		ft := f.Type
		var value, mapValue string
		switch {
		case ft.Kind() == reflect.Pointer:
			flags += "p"
			value = valueOf(ft)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8:
			flags += "l"
			value = valueOf(ft.Elem())
		case ft.Kind() == reflect.Map:
			flags += "m"
			value = valueOf(ft.Key())
			elem := ft.Elem()
			if elem.Kind() == reflect.Slice && elem.Elem().Kind() != reflect.Uint8 {
				// map[string][]string (SubjectAccessReview's extra): the value is a message holding the list.
				mapValue = "list:" + valueOf(elem.Elem())
			} else {
				mapValue = valueOf(elem)
			}
		default:
			value = valueOf(ft)
		}
		entry := field{number, jsonName, flags, value}
		if mapValue != "" {
			entry = append(entry, mapValue)
		}
		fields = append(fields, entry)
	}
	sort.Slice(fields, func(a, b int) bool { return fields[a][0].(int) < fields[b][0].(int) })
	schema[name] = fields
}

func ptr[T any](v T) *T { return &v }

// fixtures are bodies as client-go sends them (apiVersion and kind set), covering each kind of field: pointers set to
// their zero, maps of strings, bytes and quantities, lists of messages, int-or-string, times, negative numbers.
func fixtures() {
	labels := map[string]string{"app": "web", "tier": ""}
	container := corev1.Container{
		Name:  "main",
		Image: "nginx:1.27",
		Ports: []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
		Env:   []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "EMPTY"}},
		Resources: corev1.ResourceRequirements{
			Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
		},
	}
	template := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{container}, RestartPolicy: corev1.RestartPolicyNever, AutomountServiceAccountToken: ptr(false)},
	}
	objects := map[string]runtime.Object{
		"configmap": &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: "default", Labels: labels, Annotations: map[string]string{"note": "x"}},
			Data:       map[string]string{"k": "v", "empty": ""},
			BinaryData: map[string][]byte{"bin": {0, 1, 2, 255}},
			Immutable:  ptr(false),
		},
		"deployment": &appsv1.Deployment{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{GenerateName: "web-", OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "c1", UID: "u-1", Controller: ptr(true)}}},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr(int32(0)),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}, MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}}},
				Template: template,
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr(intstr.FromString("25%")), MaxUnavailable: ptr(intstr.FromInt32(0))}},
			},
		},
		"cronjob": &batchv1.CronJob{
			TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
			ObjectMeta: metav1.ObjectMeta{Name: "cj", Namespace: "default"},
			Spec:       batchv1.CronJobSpec{Schedule: "* * *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: template, BackoffLimit: ptr(int32(-1))}}},
		},
		"lease": &coordinationv1.Lease{
			TypeMeta:   metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
			ObjectMeta: metav1.ObjectMeta{Name: "l", Namespace: "default", DeletionTimestamp: ptr(metav1.NewTime(time.Date(2026, 11, 27, 9, 0, 1, 0, time.UTC)))},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr("a"), LeaseDurationSeconds: ptr(int32(15)), RenewTime: ptr(metav1.NewMicroTime(time.Date(2026, 11, 27, 9, 0, 1, 123456000, time.UTC))), LeaseTransitions: ptr(int32(0))},
		},
		"deleteoptions": &metav1.DeleteOptions{
			TypeMeta:          metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "DeleteOptions"},
			PropagationPolicy: ptr(metav1.DeletePropagationForeground),
			DryRun:            []string{"All"},
		},
	}
	serializer := protobuf.NewSerializer(nil, nil)
	out := map[string]map[string]any{}
	for name, object := range objects {
		var wire bytes.Buffer
		if err := serializer.Encode(object, &wire); err != nil {
			panic(fmt.Sprintf("%s: %v", name, err))
		}
		text, err := json.Marshal(object)
		if err != nil {
			panic(err)
		}
		out[name] = map[string]any{"protobuf": base64.StdEncoding.EncodeToString(wire.Bytes()), "json": json.RawMessage(text)}
	}
	text, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		panic(err)
	}
	fmt.Println(string(text))
}

func main() {
	withFixtures := flag.Bool("fixtures", false, "write protobuf-encoded objects beside their JSON instead of the schema")
	flag.Parse()
	if *withFixtures {
		fixtures()
		return
	}
	roots := map[string]string{}
	for kind, value := range kinds {
		t := reflect.TypeOf(value)
		walk(t)
		roots[kind] = typeName(t)
	}
	out, err := json.Marshal(map[string]any{"kinds": roots, "types": schema})
	if err != nil {
		panic(err)
	}
	fmt.Printf(`// Generated by test/cluster/tools/protobuf-schema (go run ./protobuf-schema > ...): do not edit.
// The Go API types' protobuf fields (k8s.io/api and k8s.io/apimachinery of test/cluster/tools/go.mod), for
// protobuf-body.ts: each field is [number, JSON name, flags ("o" omitempty, "p" pointer, "l" list, "m" map), value,
// map value].

/** A field of a protobuf message and its JSON form. */
export type ProtobufField = [number, string, string, string] | [number, string, string, string, string];

/** The message types by Go name, and the root type of each "apiVersion/kind". */
export interface ProtobufSchema {
  kinds: Record<string, string>;
  types: Record<string, ProtobufField[]>;
}

export const PROTOBUF_SCHEMA: ProtobufSchema = %s;
`, out)
}
