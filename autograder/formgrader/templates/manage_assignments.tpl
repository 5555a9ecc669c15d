{#- nbgrader's Manage Assignments page, with the course's script for its due-date dialog
    loaded after nbgrader's own (it takes a time zone name and shows why a date was not
    saved: autograder/formgrader/lateness.py) -#}
{#- upstream-extends: nbgrader 0.9.6 nbgrader/server_extensions/formgrader/templates/manage_assignments.tpl sha256:b0119b6950738c28afd5cb73f0302ce14b8188411962edda568b2cc758a56803 -#}
{%- extends 'nbgrader/manage_assignments.tpl' -%}

{%- block head -%}
{{ super() }}
<script src="{{ base_url }}/formgrader/course_static/js/duedate_dialog.js"></script>
{%- endblock head -%}
