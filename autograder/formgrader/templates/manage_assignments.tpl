{#- nbgrader's Manage Assignments page, with the course's script for its due-date dialog
    loaded after nbgrader's own (it takes a time zone name and shows why a date was not
    saved: autograder/formgrader/duedates.py) -#}
{%- extends 'nbgrader/manage_assignments.tpl' -%}

{%- block head -%}
{{ super() }}
<script src="{{ base_url }}/formgrader/course_static/js/duedate_dialog.js"></script>
{%- endblock head -%}
