"""Human validation: a browser listening test in the native pointwise format (issue 11).

`store` keeps the study in SQLite, `assignment` draws who hears what, `app` serves it,
`export` turns answers into agreement inputs and a run folder, `simulate` drives it over HTTP.
"""
