"""Support vector machines: SVC and SVR by SMO, LinearSVC by dual coordinate descent."""
