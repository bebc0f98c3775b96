{{/*
The name prefix of every object: <release>-stepwise, or the release name when it already says
stepwise (release "stepwise" gives the Kustomize base's names: stepwise-controller, …).
*/}}
{{- define "stepwise.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride -}}
{{- else if contains "stepwise" .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-stepwise" .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "stepwise.controllerName" -}}
{{- include "stepwise.fullname" . }}-controller
{{- end -}}

{{- define "stepwise.serviceAccountName" -}}
{{- .Values.serviceAccount.name | default (include "stepwise.controllerName" .) -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "stepwise.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/part-of: stepwise
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The controller's pods, as selected (the base's label plus the release, so releases in one
namespace never select each other's pods). Immutable in a Deployment: never change it. */}}
{{- define "stepwise.selectorLabels" -}}
app.kubernetes.io/name: stepwise-controller
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "stepwise.controllerLabels" -}}
{{ include "stepwise.labels" . }}
app.kubernetes.io/name: stepwise-controller
{{- end -}}

{{- define "stepwise.image" -}}
{{- $image := .Values.image -}}
{{- if $image.digest -}}
{{- printf "%s@%s" $image.repository $image.digest -}}
{{- else -}}
{{- printf "%s:%s" $image.repository ($image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/* Where the notification Secret is mounted (--notifications-dir). */}}
{{- define "stepwise.notificationsDir" -}}
/etc/stepwise/notifications
{{- end -}}

{{- define "stepwise.caBundleDir" -}}
/etc/stepwise/ca
{{- end -}}

{{- define "stepwise.notificationTargetsDir" -}}
/etc/stepwise/notification-targets
{{- end -}}

{{/*
One object of a file under files/ (a byte-identical copy of deploy/, refreshed by `make chart-files`),
as YAML: (list $ "files/rbac.yaml" "ClusterRole" "stepwise-controller"). Fails when the file has
no such object, so a renamed source object cannot silently drop out of the chart.
*/}}
{{- define "stepwise.source" -}}
{{- $root := index . 0 -}}
{{- $file := index . 1 -}}
{{- $kind := index . 2 -}}
{{- $name := index . 3 -}}
{{- $found := "" -}}
{{- range $doc := regexSplit "(?m)^---[ \\t]*$" ($root.Files.Get $file) -1 -}}
{{- $object := fromYaml $doc -}}
{{- if and (eq ($object.kind | default "") $kind) (eq ($object.metadata | default dict).name $name) -}}
{{- $found = toYaml $object -}}
{{- end -}}
{{- end -}}
{{- if not $found -}}
{{- fail (printf "%s has no %s %s" $file $kind $name) -}}
{{- end -}}
{{- $found -}}
{{- end -}}

{{/* The rules of a role in files/rbac.yaml: (list $ "ClusterRole" "stepwise-controller"). */}}
{{- define "stepwise.sourceRules" -}}
{{- $role := include "stepwise.source" (list (index . 0) "files/rbac.yaml" (index . 1) (index . 2)) | fromYaml -}}
{{- toYaml $role.rules -}}
{{- end -}}

{{/*
The controller's rules in namespaced mode (rbac.namespaced): those of files/rbac.yaml that a Role
can grant and a namespace admin holds (with the user ClusterRoles installed): no cluster-scoped
kinds (ClusterAnalysisTemplates, admission policies), and no Gateway API, Istio or SMI kinds,
which only their own installs aggregate (rbac.extraRules adds them back).
*/}}
{{- define "stepwise.namespacedRules" -}}
{{- $dropGroups := list "admissionregistration.k8s.io" "gateway.networking.k8s.io" "networking.istio.io" "split.smi-spec.io" -}}
{{- $rules := list -}}
{{- range $rule := include "stepwise.sourceRules" (list . "ClusterRole" "stepwise-controller") | fromYamlArray -}}
{{- $kept := true -}}
{{- range $group := $rule.apiGroups -}}
{{- if has $group $dropGroups -}}{{- $kept = false -}}{{- end -}}
{{- end -}}
{{- $resources := without $rule.resources "clusteranalysistemplates" -}}
{{- if and $kept $resources -}}
{{- $rules = append $rules (dict "apiGroups" $rule.apiGroups "resources" $resources "verbs" $rule.verbs) -}}
{{- end -}}
{{- end -}}
{{- toYaml $rules -}}
{{- end -}}
