// Argo Rollouts' documentation examples (docs/getting-started.md, docs/features/bluegreen.md,
// docs/features/analysis.md, docs/features/experiment.md), as users have them in Git, plus what
// `kubectl get rollout -o yaml` adds to a live one.

export const CANARY = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: rollouts-demo
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"argoproj.io/v1alpha1"}'
    rollout.argoproj.io/revision: "3"
    team: shop
  labels:
    app.kubernetes.io/instance: shop
    tier: web
spec:
  replicas: 5
  strategy:
    canary:
      steps:
      - setWeight: 20
      - pause: {}
      - setWeight: 40
      - pause: {duration: 10}
      - setWeight: 60
      - pause: {duration: 10}
      - setWeight: 80
      - pause: {duration: 10}
  revisionHistoryLimit: 2
  selector:
    matchLabels:
      app: rollouts-demo
  template:
    metadata:
      creationTimestamp: null
      labels:
        app: rollouts-demo
    spec:
      containers:
      - name: rollouts-demo
        image: argoproj/rollouts-demo:blue
        ports:
        - name: http
          containerPort: 8080
          protocol: TCP
        resources:
          requests:
            memory: 32Mi
            cpu: 5m
status:
  stableRS: 687d76d795
  currentPodHash: 6c7b9b5f4f
  currentStepHash: 7f5bd8f6d8
  currentStepIndex: 1
  collisionCount: 0
  controllerPause: true
  pauseConditions:
  - reason: CanaryPauseStep
    startTime: "2026-12-06T10:00:00Z"
  canary:
    weights:
      canary: {weight: 20, podTemplateHash: 6c7b9b5f4f}
      stable: {weight: 80, podTemplateHash: 687d76d795}
  phase: Paused
  replicas: 5
  observedGeneration: "7"
`;

export const BLUE_GREEN = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: rollout-bluegreen
spec:
  replicas: 2
  revisionHistoryLimit: 2
  selector:
    matchLabels:
      app: rollout-bluegreen
  template:
    metadata:
      labels:
        app: rollout-bluegreen
    spec:
      containers:
      - name: rollouts-demo
        image: argoproj/rollouts-demo:blue
        imagePullPolicy: Always
        ports:
        - containerPort: 8080
  strategy:
    blueGreen:
      activeService: rollout-bluegreen-active
      previewService: rollout-bluegreen-preview
      autoPromotionEnabled: false
`;

export const ANALYSIS = `apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata:
  name: success-rate
spec:
  args:
  - name: service-name
  metrics:
  - name: success-rate
    interval: 5m
    successCondition: result[0] >= 0.95
    failureLimit: 3
    provider:
      prometheus:
        address: http://prometheus.example.com:9090
        query: |
          sum(irate(istio_requests_total{reporter="source",destination_service=~"{{args.service-name}}",response_code!~"5.*"}[5m])) /
          sum(irate(istio_requests_total{reporter="source",destination_service=~"{{args.service-name}}"}[5m]))
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: guestbook
spec:
  replicas: 4
  selector: {matchLabels: {app: guestbook}}
  template:
    metadata: {labels: {app: guestbook}}
    spec: {containers: [{name: guestbook, image: guestbook:v2}]}
  strategy:
    canary:
      analysis:
        templates:
        - templateName: success-rate
        startingStep: 2
        args:
        - name: service-name
          value: guestbook-svc.default.svc.cluster.local
      steps:
      - setWeight: 20
      - pause: {duration: 10m}
      - setWeight: 40
      - pause: {duration: 10m}
`;

export const EXPERIMENT = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: guestbook
  annotations:
    notifications.argoproj.io/subscribe.on-rollout-completed.slack: deploys
spec:
  replicas: 4
  selector: {matchLabels: {app: guestbook}}
  template:
    metadata: {labels: {app: guestbook}}
    spec: {containers: [{name: guestbook, image: guestbook:v2}]}
  strategy:
    canary:
      trafficRouting:
        plugins:
          argoproj-labs/gatewayAPI: {httpRoute: guestbook, namespace: default}
      steps:
      - experiment:
          duration: 1h
          templates:
          - name: baseline
            specRef: stable
          - name: canary
            specRef: canary
      - plugin:
          name: argoproj-labs/sample-step
      - setWeight: 20
---
apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata:
  name: error-rate
spec:
  metrics:
  - name: error-rate
    provider:
      datadog:
        query: sum:requests.error.rate{service:guestbook}
`;
