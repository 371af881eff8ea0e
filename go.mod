module github.com/gpu-planner/planner

go 1.26
